// One POST of an encoded body (a remote-write WriteRequest, an OTLP metrics export): headers, credentials,
// time-out; the answer as a value, never a throw. How it reaches the receiver (proxy, NO_PROXY, TLS) is the
// endpoint's, built by outbound.
import { readFile } from 'node:fs/promises';
import { request, type Dispatcher } from 'undici';
import { connectionFailure, createDispatcher, shownProxy, type Endpoint } from '../../outbound/index.js';
import { errnoText } from '../../shared/errno-text.js';
import { ArgumentError, EdgeError } from '../../shared/errors.js';
import { parseRetryAfter } from '../../shared/retry-after.js';

/** Credentials: exactly one of the inline value and the file (read, trimmed, for every request, so a rotated file needs no reload). */
export type PushAuth =
  | { readonly type: 'basic'; readonly username: string; readonly password?: string; readonly passwordFile?: string }
  | { readonly type: 'bearer'; readonly token?: string; readonly tokenFile?: string };

export interface PushClientOptions {
  /** The receiver's URL, the proxy route and the TLS block (its files read once, when the client is made: at start and at every reload). */
  readonly endpoint: Endpoint;
  /** Whole request, answer included. */
  readonly timeoutMs: number;
  /** Extra headers (X-Scope-OrgID...). The protocol's own headers and Authorization are set by the client and win. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The protocol's own headers (content-type...), lower-case names. */
  readonly protocolHeaders: Readonly<Record<string, string>>;
  readonly auth?: PushAuth;
  /** Default `edge-exporter`. */
  readonly userAgent?: string;
}

/**
 * What one POST came to:
 * - `status`: the receiver answered; `message` is a short excerpt of its body
 *   for a non-2xx answer ('' for 2xx), with any credential of this request cut out;
 * - `network`: no answer (refused, reset, TLS failure, time-out);
 * - `local`: not sent, because of this side (a credentials file unreadable);
 * - `aborted`: the caller's signal ended it.
 */
export type SendOutcome =
  | { readonly kind: 'status'; readonly status: number; readonly message: string; readonly retryAfterMs?: number }
  | { readonly kind: 'network'; readonly error: string; readonly code?: string; readonly address?: string; readonly proxy?: string; readonly hint?: string }
  | { readonly kind: 'local'; readonly error: string; readonly code?: string }
  | { readonly kind: 'aborted' };

/** What the sender needs of a client (tests may pass their own). */
export interface PushTransport {
  send(body: Uint8Array, signal?: AbortSignal): Promise<SendOutcome>;
  close(): Promise<void>;
}

/** Longest excerpt of a receiver's error body kept for the log. */
const MESSAGE_EXCERPT_CHARS = 256;
const READ_LIMIT_BYTES = 4_096;

/** A credentials file (auth.password_file, auth.token_file) that cannot be read; `errno` says why, as the outcome's code. */
class SecretFileError extends EdgeError {
  readonly code = 'EDGE_SECRET_FILE';
  constructor(
    message: string,
    readonly errno: string | undefined,
    options: { readonly cause: unknown },
  ) {
    super(message, options);
  }
}

async function readSecretFile(path: string, what: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // The path is configuration, not a secret; the content never reaches a message.
    throw new SecretFileError(`cannot read the ${what} file ${path}: ${errnoText(error)}`, code, { cause: error });
  }
}

/** Cuts every credential out of `text`, and control characters, and keeps the start. */
function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join('[REDACTED]');
  // eslint-disable-next-line no-control-regex
  out = out.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return out.length > MESSAGE_EXCERPT_CHARS ? `${out.slice(0, MESSAGE_EXCERPT_CHARS)}…` : out;
}

export class PushClient implements PushTransport {
  private readonly url: URL;
  private readonly agent: Dispatcher;
  /** The proxy requests to the url go through, masked; undefined when direct. */
  private readonly proxy: string | undefined;
  private readonly fixedHeaders: Record<string, string>;
  /** Extra header values may be secrets too (an API key a receiver wants): cut out of excerpts like credentials. */
  private readonly headerSecrets: string[];

  /** Reads the TLS files (throws if one is unreadable) and makes the one agent every request goes through. */
  constructor(private readonly options: PushClientOptions) {
    this.url = new URL(options.endpoint.url);
    if (this.url.username !== '' || this.url.password !== '') {
      // A password in the URL would end up in error messages; the config has basic_auth for it.
      throw new ArgumentError('PushClient: credentials in the url are not supported, use auth');
    }
    if (!Number.isInteger(options.timeoutMs) || options.timeoutMs <= 0) {
      throw new ArgumentError(`PushClient: timeoutMs must be a positive integer (got ${options.timeoutMs})`);
    }
    const auth = options.auth;
    if (auth?.type === 'basic' && (auth.password === undefined) === (auth.passwordFile === undefined)) {
      throw new ArgumentError('PushClient: basic auth needs exactly one of password and passwordFile');
    }
    if (auth?.type === 'bearer' && (auth.token === undefined) === (auth.tokenFile === undefined)) {
      throw new ArgumentError('PushClient: bearer auth needs exactly one of token and tokenFile');
    }
    this.proxy = shownProxy(options.endpoint.route, options.endpoint.url);
    this.agent = createDispatcher(options.endpoint);
    // Lower-cased so the protocol's own headers replace an extra one of the same name, whatever its case.
    const extra: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.headers ?? {})) extra[name.toLowerCase()] = value;
    this.headerSecrets = Object.values(extra);
    this.fixedHeaders = {
      ...extra,
      ...options.protocolHeaders,
      'user-agent': options.userAgent ?? 'edge-exporter',
    };
  }

  /** The Authorization value and the secrets it holds (for redaction); files are read now, so a rotation takes effect at once. */
  private async credentials(): Promise<{ authorization?: string; secrets: string[] }> {
    const auth = this.options.auth;
    if (auth === undefined) return { secrets: [...this.headerSecrets] };
    if (auth.type === 'basic') {
      const password = auth.passwordFile === undefined ? (auth.password ?? '') : await readSecretFile(auth.passwordFile, 'basic auth password');
      const encoded = Buffer.from(`${auth.username}:${password}`).toString('base64');
      return { authorization: `Basic ${encoded}`, secrets: [password, encoded, ...this.headerSecrets] };
    }
    const token = auth.tokenFile === undefined ? (auth.token ?? '') : await readSecretFile(auth.tokenFile, 'bearer token');
    return { authorization: `Bearer ${token}`, secrets: [token, ...this.headerSecrets] };
  }

  async send(body: Uint8Array, signal?: AbortSignal): Promise<SendOutcome> {
    if (signal?.aborted) return { kind: 'aborted' };
    let credentials: { authorization?: string; secrets: string[] };
    try {
      credentials = await this.credentials();
    } catch (error) {
      const errno = error instanceof SecretFileError ? error.errno : undefined;
      return { kind: 'local', error: error instanceof SecretFileError ? error.message : String(error), ...(errno === undefined ? {} : { code: errno }) };
    }
    const headers = { ...this.fixedHeaders };
    if (credentials.authorization !== undefined) headers.authorization = credentials.authorization;

    // One controller for the caller's signal and the time-out, so either ends the whole exchange.
    const ending = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ending.abort();
    }, this.options.timeoutMs);
    timer.unref();
    const onAbort = (): void => ending.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const answer = await request(this.url, { method: 'POST', dispatcher: this.agent, headers, body, signal: ending.signal });
      if (answer.statusCode >= 200 && answer.statusCode < 300) {
        await answer.body.dump();
        return { kind: 'status', status: answer.statusCode, message: '' };
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of answer.body as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= READ_LIMIT_BYTES) break; // leaving the loop destroys the rest of the body
      }
      const text = Buffer.concat(chunks).subarray(0, READ_LIMIT_BYTES).toString('utf8');
      const message = redact(text, credentials.secrets);
      // Only where the receiver may ask for a pause (429, 503); capped (shared/retry-after.ts).
      const retryAfterMs = answer.statusCode === 429 || answer.statusCode === 503 ? parseRetryAfter(answer.headers['retry-after'], Date.now()) : undefined;
      return { kind: 'status', status: answer.statusCode, message, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    } catch (error) {
      if (signal?.aborted) return { kind: 'aborted' };
      if (timedOut) return { kind: 'network', error: `no answer within ${this.options.timeoutMs} ms`, code: 'TIMEOUT' };
      const failure = connectionFailure(error, this.options.endpoint.name, this.options.endpoint.url, this.proxy);
      return {
        kind: 'network',
        // Made of the address, a code, the masked proxy and a fixed hint: nothing of the request to cut out, and not cut short.
        error: failure.message,
        code: failure.reason,
        address: failure.address,
        hint: failure.hint,
        ...(failure.proxy === undefined ? {} : { proxy: failure.proxy }),
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Closes the agent's connections; the client is not used after. */
  async close(): Promise<void> {
    await this.agent.close();
  }
}
