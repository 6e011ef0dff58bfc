// One HTTP attempt: send, read the body under a size cap, and turn every way
// it can go wrong into a typed ApiError. Retrying and limiting live in client.ts.
import { setMaxListeners } from 'node:events';
import { request, errors as undiciErrors, type Dispatcher } from 'undici';
import type { OperationName } from './operations.js';
import {
  AbortedError, AuthError, BadResponseError, BodyTooLargeError, HttpError, NetworkError,
  NotFoundError, PermissionError, RateLimitedError, TimeoutError, UpstreamError, type ApiError,
} from './errors.js';
import { credentialParts, redactSecrets } from '../log/redact.js';
import { parseRetryAfter } from '../shared/retry-after.js';
import { connectionFailure } from '../outbound/index.js';

interface AttemptInput {
  operation: OperationName;
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  dispatcher: Dispatcher;
  timeoutMs: number;
  maxBodyBytes: number;
  signal: AbortSignal | undefined;
  /** The proxy this request goes through, its credentials masked; undefined when direct. */
  proxy?: string;
  /** That proxy's credentials (see proxyCredentials): a proxy's error page may echo its Proxy-Authorization. */
  proxySecrets?: readonly string[];
}

interface AttemptResult {
  status: number;
  /** The parsed JSON envelope, its `code` already checked to be 200. */
  json: unknown;
}

export async function attempt(input: AttemptInput): Promise<AttemptResult> {
  const { operation } = input;
  const timeout = AbortSignal.timeout(input.timeoutMs);
  const { signal, unlink } = linkSignals(input.signal, timeout);
  let status: number;
  let text: string;
  let retryAfter: string | string[] | undefined;
  try {
    const res = await request(input.url, {
      method: input.method,
      headers: input.headers,
      body: input.body,
      dispatcher: input.dispatcher,
      signal,
    });
    status = res.statusCode;
    retryAfter = res.headers['retry-after'];
    text = await readCapped(res.body, input.maxBodyBytes, operation, status);
  } catch (err) {
    throw transportError(err, input, timeout);
  } finally {
    unlink();
  }
  const json = parseJson(text);
  const envelope = readEnvelope(json);
  const upstreamMsg = envelope.msg === undefined ? undefined : maskCredentials(envelope.msg, input.headers, input.proxySecrets);
  const details = { operation, status, upstreamCode: envelope.code, upstreamMsg };
  // Read only where it means "throttled, come back then" (throttle.ts); elsewhere it is ignored.
  const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(retryAfter, Date.now()) : undefined;
  const statusError = errorForStatus(status, retryAfterMs === undefined ? details : { ...details, retryAfterMs });
  if (statusError) throw statusError;
  if (json === undefined) {
    throw new BadResponseError(`${operation}: response body is not JSON (HTTP ${status})`, details);
  }
  if (envelope.code !== undefined && envelope.code !== 200) {
    throw new UpstreamError(`${operation}: upstream code ${envelope.code}: ${upstreamMsg ?? '(no msg)'}`, details);
  }
  if (envelope.code === undefined) {
    throw new BadResponseError(`${operation}: response has no envelope code`, details);
  }
  return { status, json };
}

/**
 * The caller's signal and the attempt's timeout as one signal, unlinked from
 * the caller's when the attempt ends. Not AbortSignal.any(): on Node 20 each
 * call leaves an entry on the caller's signal that is never removed
 * (nodejs/node#55351), and the engine passes one signal that lives as long as
 * the daemon: about 60 bytes per request, for good. The caller's signal
 * carries one listener per attempt in flight (plus retry waits), so the
 * listener-count warning is lifted on it.
 */
function linkSignals(parent: AbortSignal | undefined, timeout: AbortSignal): { signal: AbortSignal; unlink: () => void } {
  if (!parent) return { signal: timeout, unlink: () => undefined };
  const linked = new AbortController();
  const onParent = (): void => linked.abort(parent.reason);
  const onTimeout = (): void => linked.abort(timeout.reason);
  if (parent.aborted) onParent();
  setMaxListeners(0, parent);
  parent.addEventListener('abort', onParent, { once: true });
  timeout.addEventListener('abort', onTimeout, { once: true });
  return {
    signal: linked.signal,
    unlink: () => {
      parent.removeEventListener('abort', onParent);
      timeout.removeEventListener('abort', onTimeout);
    },
  };
}

async function readCapped(
  body: Dispatcher.ResponseData['body'], max: number, operation: OperationName, status: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > max) {
      body.destroy();
      throw new BodyTooLargeError(`${operation}: response body exceeds ${max} bytes`, { operation, status });
    }
    chunks.push(buf);
  }
  // One chunk (a loopback or small answer) is decoded where it lies: Buffer.concat would copy it into a new allocation first.
  const [only] = chunks;
  return chunks.length === 1 && only !== undefined ? only.toString('utf8') : Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The envelope msg ends up in error messages, logs, the landing page and
 * `call` output; an upstream (or a proxy in between) may echo what it was
 * sent, so the credentials of this request are masked before it goes further.
 */
export function maskCredentials(text: string, headers: Readonly<Record<string, string>>, also: readonly string[] = []): string {
  return redactSecrets(text, [...credentialParts(headers['authorization'] ?? ''), ...also]);
}

function readEnvelope(json: unknown): { code?: number; msg?: string } {
  if (typeof json !== 'object' || json === null) return {};
  const record = json as Record<string, unknown>;
  const rawCode = record['code'];
  // The document types several codes as strings that arrive as integers.
  const code = typeof rawCode === 'number' ? rawCode : typeof rawCode === 'string' && /^\d+$/.test(rawCode) ? Number(rawCode) : undefined;
  const msg = typeof record['msg'] === 'string' ? record['msg'] : undefined;
  return { ...(code === undefined ? {} : { code }), ...(msg === undefined ? {} : { msg }) };
}

type Details = ConstructorParameters<typeof HttpError>[1];

function errorForStatus(status: number, details: Details): ApiError | undefined {
  const op = details.operation;
  const suffix = details.upstreamMsg ? `: ${details.upstreamMsg}` : '';
  if (status === 401) return new AuthError(`${op}: HTTP 401, token missing or invalid${suffix}`, details);
  if (status === 403) return new PermissionError(`${op}: HTTP 403, token lacks the permission for this operation${suffix}`, details);
  if (status === 404) return notFound(details);
  if (status === 429) return new RateLimitedError(`${op}: HTTP 429, rate limited${suffix}`, details);
  if (status < 200 || status > 299) return new HttpError(`${op}: HTTP ${status}${suffix}`, details);
  return undefined;
}

/** The upstream's message for a business 404 ("the package does not exist"); the path hint only when it did not answer in its format. */
function notFound(details: Details): NotFoundError {
  const op = details.operation;
  if (details.upstreamCode !== undefined && details.upstreamMsg !== undefined) {
    return new NotFoundError(`${op}: HTTP 404, upstream code ${details.upstreamCode}: ${details.upstreamMsg}`, details);
  }
  return new NotFoundError(`${op}: HTTP 404 without the upstream's error body: path not found (check upstream.paths.${op} and upstream.api_url)`, details);
}

function transportError(err: unknown, input: AttemptInput, timeout: AbortSignal): ApiError {
  const { operation } = input;
  if (err instanceof BodyTooLargeError) return err;
  if (timeout.aborted || err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    // Where it waited, so a proxy or firewall that swallows the traffic is told apart from a slow upstream.
    const url = new URL(input.url);
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const where = `${url.hostname}:${port}${input.proxy === undefined ? '' : ` via proxy ${input.proxy}`}`;
    return new TimeoutError(`${operation}: no complete response from ${where} within ${input.timeoutMs} ms`, { operation, cause: err });
  }
  if (input.signal?.aborted) return new AbortedError(`${operation}: aborted`, { operation, cause: err });
  const { message, ...failure } = connectionFailure(err, 'upstream', input.url, input.proxy);
  return new NetworkError(`${operation}: ${message}`, { operation, cause: err, ...failure });
}
