// The daemon's HTTP side: /metrics (rendered from what the last cycles
// collected, never from the upstream), /healthz (alive), /readyz and a landing
// page (both read the daemon's one status), POST /-/reload when enabled. Optional basic auth and TLS (client certificates too), whose
// credentials a reload replaces.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureContextOptions, SecureVersion } from 'node:tls';
import { BasicAuthVerifier, type BasicAuthCredentials } from './auth.js';
import { renderLanding } from './landing.js';
import type { MetricsSource, ReloadSource, StatusSource } from './types.js';
import { InternalError } from '../shared/errors.js';

export interface HttpServerOptions {
  readonly host: string;
  readonly port: number;
  readonly metrics: MetricsSource;
  /** Read afresh by every request for /readyz and the landing page. */
  readonly status: StatusSource;
  readonly version: string;
  readonly basicAuth?: BasicAuthCredentials;
  /** PEM contents, not paths: the config layer reads the files. */
  readonly tls?: TlsPair;
  readonly reload?: ReloadSource;
}

export interface TlsPair {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  /** The CAs a client certificate must chain to; with `clientAuth: 'require_and_verify'`. */
  readonly ca?: string | Buffer;
  /** Default 'none'. Fixed for the server's life: Node sets it per listener, not per secure context. */
  readonly clientAuth?: ClientAuth;
  readonly minVersion?: SecureVersion;
  readonly maxVersion?: SecureVersion;
}

/**
 * `request`: a certificate is asked for but neither required nor verified.
 * `require_and_verify`: the handshake fails without one the CA signed, before
 * any path is read, so the probes need one too.
 */
export type ClientAuth = 'none' | 'request' | 'require_and_verify';

/** What a reload may replace; whether TLS is on at all stays as started. */
export interface ServerCredentials {
  readonly basicAuth?: BasicAuthCredentials;
  readonly tls?: TlsPair;
}

export class HttpServer {
  private readonly server: Server;
  private started: Promise<string> | undefined;
  private stopped: Promise<void> | undefined;
  private basicAuth: BasicAuthCredentials | undefined;
  private readonly verifier = new BasicAuthVerifier();

  constructor(private readonly options: HttpServerOptions) {
    this.basicAuth = options.basicAuth;
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`internal error: ${err instanceof Error ? err.name : 'unknown'}\n`);
      });
    };
    const tls = options.tls;
    const clientAuth = tls?.clientAuth ?? 'none';
    this.server = tls
      ? createHttpsServer({ ...secureContext(tls), requestCert: clientAuth !== 'none', rejectUnauthorized: clientAuth === 'require_and_verify' }, handler)
      : createHttpServer(handler);
  }

  /** Starts listening; resolves to the base URL. Idempotent. */
  start(): Promise<string> {
    this.started ??= new Promise<string>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', reject);
        const { address, port } = this.server.address() as AddressInfo;
        const host = address.includes(':') ? `[${address}]` : address;
        resolve(`${this.options.tls ? 'https' : 'http'}://${host}:${port}`);
      });
    });
    return this.started;
  }

  /**
   * Replaces the basic-auth credentials and the TLS certificate, key, client
   * CA and versions (new connections use them; open ones keep theirs).
   * Turning TLS on or off, or changing the client-certificate mode, needs a
   * new listener, so a restart: the caller refuses that change.
   */
  setCredentials(credentials: ServerCredentials): void {
    if ((credentials.tls !== undefined) !== (this.options.tls !== undefined)) throw new InternalError('TLS cannot be turned on or off without a restart');
    if ((credentials.tls?.clientAuth ?? 'none') !== (this.options.tls?.clientAuth ?? 'none')) throw new InternalError('the client certificate mode cannot change without a restart');
    if (credentials.tls) (this.server as HttpsServer).setSecureContext(secureContext(credentials.tls));
    this.basicAuth = credentials.basicAuth;
  }

  /** Stops accepting, closes idle and open connections. Idempotent. */
  stop(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      if (!this.server.listening) return resolve();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    return this.stopped;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/-/reload') return this.reload(req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
    // Probes stay open so a kubelet or HEALTHCHECK needs no credentials; they reveal nothing.
    if (path === '/healthz') return send(res, 200, 'ok\n');
    if (path === '/readyz') return this.readyz(res);
    if (!(await this.authorized(req, res))) return;
    if (path === '/metrics') return this.metrics(req, res);
    if (path === '/') {
      const html = renderLanding(this.options.version, this.options.status.status());
      return send(res, 200, html, { 'content-type': 'text/html; charset=utf-8' });
    }
    return send(res, 404, 'not found\n');
  }

  private async authorized(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    if (!this.basicAuth || (await this.verifier.check(req.headers.authorization, this.basicAuth))) return true;
    send(res, 401, 'unauthorized\n', { 'www-authenticate': 'Basic realm="edge-exporter", charset="UTF-8"' });
    return false;
  }

  /** As Prometheus's lifecycle endpoint: POST or PUT, 403 while disabled, 500 with the reason when the config is refused. */
  private readyz(res: ServerResponse): void {
    const { state, ready } = this.options.status.status();
    if (ready) return send(res, 200, 'ready\n');
    const running = state === 'running' || state === 'reloading';
    return send(res, 503, running ? 'not ready: no successful collection yet\n' : `not ready: the daemon is ${state}\n`);
  }

  private async reload(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!(await this.authorized(req, res))) return;
    if (req.method !== 'POST' && req.method !== 'PUT') return send(res, 405, 'method not allowed\n', { allow: 'POST, PUT' });
    const reload = this.options.reload;
    if (!reload?.enabled()) return send(res, 403, 'reload is disabled; set server.enable_reload: true, or send SIGHUP\n');
    const outcome = await reload.reload();
    return outcome.ok ? send(res, 200, 'configuration reloaded\n') : send(res, 500, `reload refused, still running on the previous configuration: ${outcome.message}\n`);
  }

  private async metrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { metrics } = this.options;
    const format = metrics.negotiate(req.headers.accept);
    const gzip = acceptsGzip(req.headers['accept-encoding']);
    const out = gzip ? await metrics.renderGzip(format) : await metrics.render(format);
    res.writeHead(200, {
      'content-type': out.contentType,
      'content-length': out.byteLength ?? out.body.length,
      vary: 'Accept, Accept-Encoding',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
    if (req.method === 'HEAD') return void res.end();
    // Writing the cached pieces avoids copying a 10 MB exposition into one buffer per scrape.
    if (out.chunks) {
      for (const chunk of out.chunks) res.write(chunk);
      res.end();
    } else {
      res.end(out.body);
    }
  }
}

function secureContext(tls: TlsPair): SecureContextOptions {
  return {
    cert: tls.cert, key: tls.key,
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ...(tls.minVersion === undefined ? {} : { minVersion: tls.minVersion }),
    ...(tls.maxVersion === undefined ? {} : { maxVersion: tls.maxVersion }),
  };
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** True when the client accepts gzip with a non-zero quality. */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';');
    if (coding?.trim().toLowerCase() !== 'gzip') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
