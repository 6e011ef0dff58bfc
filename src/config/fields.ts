// Small zod field builders shared by the config sections, so a rule (what a
// URL or a listen address is) is written once and reads the same everywhere.
import { z } from 'zod';
import { parseUtcOffset } from '../api/time.js';

/** An absolute http:// or https:// URL; a trailing slash is dropped so paths can be appended. */
export function httpUrl() {
  return z
    .url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' })
    .transform((url) => url.replace(/\/+$/, ''));
}

/** Whether an absolute URL carries `user:password@`: such credentials end up in logs and errors, so sections with auth keys refuse them. */
export function urlHasCredentials(url: string): boolean {
  const parsed = new URL(url);
  return parsed.username !== '' || parsed.password !== '';
}

/** A fixed UTC offset such as `+08:00`, `UTC+8` or `-0530`, checked by the same parser the client uses. */
export function utcOffset() {
  return z.string().refine(
    (text) => {
      try {
        parseUtcOffset(text);
        return true;
      } catch {
        return false;
      }
    },
    { error: 'expected a UTC offset like +08:00, UTC+8 or -05:30' },
  ).meta({ 'x-type': 'UTC offset' });
}

interface HostPort {
  host: string;
  port: number;
}

const HOST_PORT_RE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

/** `'127.0.0.1:9100'` / `'[::1]:0'` -> `{ host, port }` (brackets removed); undefined when malformed. */
export function parseHostPort(text: string): HostPort | undefined {
  const m = HOST_PORT_RE.exec(text);
  if (!m?.[1] || m[2] === undefined) return undefined;
  const port = Number(m[2]);
  if (port > 65_535) return undefined;
  return { host: m[1].replace(/^\[|\]$/g, ''), port };
}

/** A `HOST:PORT` listen address, kept as written; port 0 asks for an ephemeral port. */
export function listenAddress() {
  return z.string().refine((text) => parseHostPort(text) !== undefined, {
    error: 'expected HOST:PORT like 127.0.0.1:9100 or [::1]:0 (port 0-65535)',
  }).meta({ 'x-type': 'HOST:PORT' });
}

/** A bearer-style secret: printable text, never a line break that could split a header. */
export function secret() {
  return z
    .string()
    .min(1, { error: 'must not be empty' })
    .refine((text) => !/\p{Cc}/u.test(text), {
      error: 'must not contain control characters or line breaks',
    });
}

/** Whether `text` passes {@link secret}; used for secrets read from files after validation. */
export function isUsableSecret(text: string): boolean {
  return text.length > 0 && !/\p{Cc}/u.test(text);
}

/**
 * An integer field. Use this, not `z.int()`: zod marks a fractional number as
 * an aborting issue, which would skip the cross-field rules of every enclosing
 * object and hide their problems until the number is fixed.
 */
export function integer() {
  return z
    .number()
    .refine(Number.isSafeInteger, { error: 'expected an integer' })
    .meta({ type: 'integer' });
}

/**
 * HTTP basic auth: a user name and exactly one of a password (${ENV} allowed)
 * or a file holding it; `at` is the section's dotted path, for the message.
 */
export function basicAuth(at: string, help: { readonly username: string; readonly passwordFile: string }) {
  return z
    .strictObject({
      username: z.string().min(1).describe(help.username),
      password: secret().optional().describe('Password; supports ${ENV} interpolation. Mutually exclusive with password_file.'),
      password_file: z.string().min(1).optional().describe(help.passwordFile),
    })
    .superRefine((auth, ctx) => {
      if ((auth.password === undefined) === (auth.password_file === undefined)) {
        ctx.addIssue({ code: 'custom', path: ['password'], message: `set exactly one of ${at}.password and ${at}.password_file` });
      }
    });
}

/** RFC 9110 token: what an HTTP header name may contain. */
export const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers sent with every request: names checked as HTTP header names (and,
 * with `reserved`, not one the sender sets itself), values free of control
 * characters. Keys are checked by a refinement rather than a key schema, so
 * the problem names the key instead of "Invalid key in record".
 */
export function headerMap(reserved?: { readonly names: readonly string[]; readonly message: (name: string) => string }) {
  return z
    .record(z.string(), z.string().refine((v) => !/\p{Cc}/u.test(v), { error: 'must not contain control characters or line breaks' }))
    .superRefine((headers, ctx) => {
      for (const name of Object.keys(headers)) {
        if (!HEADER_NAME_RE.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'expected an HTTP header name' });
        else if (reserved?.names.includes(name.toLowerCase())) ctx.addIssue({ code: 'custom', path: [name], message: reserved.message(name) });
      }
    });
}

/**
 * The proxy an outbound client goes through: http:// (CONNECT for https
 * targets, absolute-form for http ones) or https:// (TLS to the proxy).
 * Credentials (`http://user:pass@proxy:3128`) are allowed and masked in every
 * output; the schema's messages never quote the value.
 */
function proxyUrl() {
  return z.string().refine(isProxyUrl, { error: 'expected an http:// or https:// proxy URL like http://proxy.example.com:3128' }).meta({ 'x-type': 'URL' });
}

/** Whether `text` is what {@link proxyUrl} accepts; also checks a proxy_url_file's content after validation. */
export function isProxyUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && !/\p{Cc}/u.test(text);
}

/**
 * The keys every outbound client's section has (upstream, otlp,
 * otlp_metrics, remote_write), spread into its object: `<at>.proxy_url`,
 * `<at>.proxy_url_file` ({@link proxyExclusive} checks that at most one is
 * set) and `<at>.tls`. `server` names the other end in the descriptions
 * (`upstream`, `receiver`). What they hold reaches the client through
 * config/endpoints.ts, so a key every client honours is added here and there.
 */
export function outboundFields(at: string, server: string) {
  return {
    ...proxyFields(at),
    tls: tlsBlock(`${at}.tls`, `the ${server}`)
      .optional()
      .describe(`TLS to an https:// ${server} (default: verify against the system's roots). Applies through a proxy too.`),
  };
}

function proxyFields(at: string) {
  return {
    proxy_url: proxyUrl()
      .optional()
      .describe(
        `Proxy for this client's requests, e.g. http://proxy.example.com:3128 (credentials allowed, masked in every output). ` +
          `Overrides HTTPS_PROXY / HTTP_PROXY / NO_PROXY for it (default: those variables). Mutually exclusive with ${at}.proxy_url_file.`,
      ),
    proxy_url_file: z
      .string()
      .min(1)
      .optional()
      .describe(`File whose content (trimmed) is ${at}.proxy_url, read at start and again on reload (default none).`),
  };
}

/** The refinement that goes with {@link outboundFields}. */
export function proxyExclusive(at: string) {
  return (section: { proxy_url?: unknown; proxy_url_file?: unknown }, ctx: z.RefinementCtx): void => {
    if (section.proxy_url !== undefined && section.proxy_url_file !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['proxy_url_file'], message: `${at}.proxy_url and ${at}.proxy_url_file are mutually exclusive: set only one` });
    }
  };
}

/**
 * TLS to an https:// server (the upstream, the OTLP logs and metrics
 * receivers, the remote-write receiver): one block, the same keys
 * everywhere. Files are read when the client is built, so at start and again
 * on every reload.
 */
function tlsBlock(at: string, server: string) {
  return z
    .strictObject({
      ca_file: z
        .string()
        .min(1)
        .optional()
        .describe(`PEM file of CA certificate(s) trusted in addition to the system's roots, e.g. a corporate TLS-inspection CA (default: the system's roots only).`),
      cert_file: z.string().min(1).optional().describe(`PEM client certificate, for when ${server} asks for one (with key_file; default none).`),
      key_file: z.string().min(1).optional().describe('PEM private key of cert_file (default none).'),
      server_name: z
        .string()
        .min(1)
        .optional()
        .describe(`Name ${server}'s certificate must carry, and the SNI sent, when it is not the URL's host (default: the URL's host).`),
      // Only a literal `true` turns verification off: `yes`, `1` or `"true"` are refused rather than read as true.
      insecure_skip_verify: z
        .boolean()
        .default(false)
        .describe(
          `Accept any certificate from ${server} (default false). Must be the boolean true to take effect; while on, a warning is ` +
            'logged at start and shown on the status page. For tests only: anyone on the path can read and change the traffic.',
        ),
    })
    .superRefine((tls, ctx) => {
      if ((tls.cert_file === undefined) !== (tls.key_file === undefined)) {
        ctx.addIssue({ code: 'custom', path: ['cert_file'], message: `set both ${at}.cert_file and ${at}.key_file, or neither` });
      }
    });
}

export type TlsBlock = z.output<ReturnType<typeof tlsBlock>>;

/**
 * The most samples (points) one push pipe may keep waiting. They are kept in
 * the collectors' ledger files, each written as one JSON string, and Node's
 * longest string is 2^29 - 24 characters (536,870,888): a row is at most 43
 * characters for remote-write and 57 for OTLP metrics (wide values, 13-digit
 * times), so with both pipes at this cap one file's rows stay under 400 MB,
 * with room for its series and counters (measured: both pipes at the cap with
 * 100k series each, 418 M characters, 78 % of the limit). At 100k series, 125 minutes of OTLP
 * backlog (12.5 M points) failed to save with `RangeError: Invalid string
 * length` (docs/benchmarks.md, "OTLP metrics").
 */
export const MAX_PENDING_PER_PIPE = 4_000_000;
