// A TLS-terminating front for a plain-HTTP test server (the simulator, an
// OTLP receiver): accepts TLS on a loopback port and pipes each connection
// to the server's port. Optionally demands a client certificate.
import { connect, type Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';

export interface TlsFront {
  /** `https://127.0.0.1:PORT`. */
  readonly origin: string;
  readonly port: number;
  /** Connections whose handshake completed. */
  readonly handshakes: number;
  /** Subjects (CN) of the client certificates presented, in order. */
  readonly clientSubjects: readonly string[];
  close(): Promise<void>;
}

interface TlsFrontOptions {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** The plain server's port on 127.0.0.1. */
  readonly targetPort: number;
  /** Demand a client certificate signed by this CA. */
  readonly clientCa?: Buffer;
}

export async function startTlsFront(options: TlsFrontOptions): Promise<TlsFront> {
  const sockets = new Set<Socket>();
  const state = { handshakes: 0, clientSubjects: [] as string[] };
  const server = createServer(
    { cert: options.cert, key: options.key, ...(options.clientCa ? { ca: options.clientCa, requestCert: true, rejectUnauthorized: true } : {}) },
    (tlsSocket: TLSSocket) => {
      state.handshakes++;
      const subject = tlsSocket.getPeerCertificate().subject?.CN;
      if (typeof subject === 'string') state.clientSubjects.push(subject);
      const upstream = connect(options.targetPort, '127.0.0.1');
      sockets.add(tlsSocket).add(upstream);
      const forget = (): void => {
        sockets.delete(tlsSocket);
        sockets.delete(upstream);
        tlsSocket.destroy();
        upstream.destroy();
      };
      tlsSocket.on('error', forget).on('close', forget);
      upstream.on('error', forget).on('close', forget);
      tlsSocket.pipe(upstream).pipe(tlsSocket);
    },
  );
  // A failed handshake (the client did not trust us) is what some tests are about; it must not crash the server.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    get handshakes() {
      return state.handshakes;
    },
    get clientSubjects() {
      return state.clientSubjects;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
