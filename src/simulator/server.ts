// The HTTP transport: reads request bodies, delays or withholds answers as the
// app's reply script says, and writes JSON (or deliberately broken) bodies. close()
// is idempotent and also ends requests that are hanging or delayed, so a test
// run never waits on a simulated fault.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { InternalError } from '../shared/errors.js';

export interface Incoming {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly authorization: string | undefined;
  readonly bodyText: string;
}

export interface Reply {
  readonly status: number;
  /** Serialised as JSON unless `raw` is given. */
  readonly body?: unknown;
  readonly raw?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Send the first half of the body, then drop the connection. */
  readonly truncated?: boolean;
}

/** How the simulator answers one request: after what delay, with what reply, or never. */
export interface ReplyScript {
  readonly delayMs: number;
  /** Never answer. */
  readonly hang: boolean;
  /** Produces the reply once the delay has passed. */
  readonly respond: () => Reply;
}

export type App = (incoming: Incoming) => ReplyScript;

const MAX_BODY_BYTES = 4 * 1024 * 1024;

export class SimServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closing: Promise<void> | undefined;
  private listening = false;

  constructor(private readonly app: App) {
    this.server = createServer((req, res) => this.onRequest(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  async listen(host: string, port: number): Promise<{ url: string; port: number }> {
    if (this.listening || this.closing) throw new InternalError('simulator server already started');
    this.listening = true;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const actual = (this.server.address() as AddressInfo).port;
    return { url: `http://${host.includes(':') ? `[${host}]` : host}:${actual}`, port: actual };
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      for (const t of this.timers) clearTimeout(t);
      this.timers.clear();
      if (!this.listening) return resolve();
      this.server.close(() => resolve());
      for (const s of this.sockets) s.destroy();
    });
    return this.closing;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return send(res, { status: 413, body: { code: 413, msg: 'request body too large' } });
      const url = new URL(req.url ?? '/', 'http://simulator');
      this.run(res, {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        authorization: req.headers.authorization,
        bodyText: Buffer.concat(chunks).toString('utf8'),
      });
    });
  }

  private run(res: ServerResponse, incoming: Incoming): void {
    let script: ReplyScript;
    try {
      script = this.app(incoming);
    } catch (err) {
      return send(res, internalError(err));
    }
    if (script.hang || this.closing) return;
    const answer = (): void => {
      try {
        send(res, script.respond());
      } catch (err) {
        send(res, internalError(err));
      }
    };
    if (script.delayMs <= 0) return answer();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      answer();
    }, script.delayMs);
    this.timers.add(timer);
  }
}

function internalError(err: unknown): Reply {
  return { status: 500, body: { code: 500, msg: `simulator error: ${err instanceof Error ? err.message : String(err)}` } };
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed) return;
  const bytes = Buffer.from(reply.raw ?? JSON.stringify(reply.body ?? null), 'utf8');
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(bytes.length),
    ...reply.headers,
  });
  if (!reply.truncated) {
    res.end(bytes);
    return;
  }
  res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.destroy());
}
