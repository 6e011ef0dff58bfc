// `server:` — where /metrics is served and how it is protected.
import { z } from 'zod';
import { listenAddress, secret } from '../fields.js';

/** How a scraper's TLS client certificate is treated; the names map onto exporter-toolkit's client_auth_type. */
const CLIENT_AUTH_MODES = ['none', 'request', 'require_and_verify'] as const;
export type ClientAuthMode = (typeof CLIENT_AUTH_MODES)[number];

/**
 * A bcrypt hash as htpasswd and exporter-toolkit write it (`$2y$`, `$2b$` or
 * `$2a$`, a two-digit cost, 53 characters of salt and hash).
 */
const BCRYPT_HASH_RE = /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

/** Also the web config's basic_auth_users values. */
export function bcryptHash() {
  return z.string().regex(BCRYPT_HASH_RE, { error: 'expected a bcrypt hash like $2y$10$… (htpasswd -nBC 10 "" | tr -d \':\\n\')' });
}

// Not fields.ts' basicAuth: the server checks a password, so it may hold only its bcrypt hash, which a sender never can.
const basicAuthSchema = z
  .strictObject({
    username: z.string().min(1).describe('User name Prometheus sends (no default).'),
    password: secret().optional().describe('Password; supports ${ENV} interpolation. Exactly one of password, password_file and password_hash.'),
    password_file: z.string().min(1).optional().describe('File whose content (trimmed) is the password.'),
    password_hash: bcryptHash()
      .optional()
      .describe('bcrypt hash of the password (`htpasswd -nBC 10 "" | tr -d \':\\n\'`), so no file holds the password itself. A successful check is cached in memory (as exporter-toolkit does), so only the first scrape with a given password pays for bcrypt.'),
  })
  .superRefine((auth, ctx) => {
    const set = [auth.password, auth.password_file, auth.password_hash].filter((v) => v !== undefined).length;
    if (set !== 1) {
      ctx.addIssue({ code: 'custom', path: ['password'], message: 'set exactly one of server.basic_auth.password, server.basic_auth.password_file and server.basic_auth.password_hash' });
    }
  });

const tlsSchema = z
  .strictObject({
    cert_file: z.string().min(1).describe('PEM certificate (chain) file.'),
    key_file: z.string().min(1).describe('PEM private key file.'),
    client_ca_file: z
      .string()
      .min(1)
      .optional()
      .describe('PEM file of the CA certificates that sign the scrapers\' client certificates (no default). Needs client_auth other than none.'),
    client_auth: z
      .enum(CLIENT_AUTH_MODES)
      .default('none')
      .describe('Client certificates: `none` (default; none asked for), `request` (asked for, neither required nor verified: no protection on its own), `require_and_verify` (needs client_ca_file; every connection must present a certificate it signed, or the TLS handshake fails, before any path is known: the probes too). A client_ca_file with `none` is refused, as exporter-toolkit refuses it. Changed only by a restart.'),
  })
  .superRefine((tls, ctx) => {
    if (tls.client_auth === 'none' && tls.client_ca_file !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['client_auth'], message: 'server.tls.client_ca_file is set but client_auth is none: set client_auth: require_and_verify (or remove client_ca_file)' });
    }
    if (tls.client_auth === 'require_and_verify' && tls.client_ca_file === undefined) {
      ctx.addIssue({ code: 'custom', path: ['client_ca_file'], message: 'client_auth: require_and_verify needs server.tls.client_ca_file, the CA that signs the client certificates' });
    }
  });

export const serverSchema = z.strictObject({
  listen: listenAddress()
    .default('0.0.0.0:9810')
    .describe('HOST:PORT for /metrics, /healthz, /readyz and the landing page (default 0.0.0.0:9810). `run --listen` overrides it. Changed only by a restart: a reload that changes it is refused.'),
  basic_auth: basicAuthSchema.optional().describe('Require HTTP basic auth for /metrics, /-/reload and the landing page (the probes stay open). Default: off. A reload re-reads it and its password_file. Refused together with basic_auth_users in `run --web.config.file`.'),
  tls: tlsSchema.optional().describe('Serve HTTPS with this certificate and key. Default: plain HTTP. A reload re-reads the certificate, key and client CA files (a renewed certificate); turning TLS on or off, or changing client_auth, needs a restart. Refused together with tls_server_config in `run --web.config.file`.'),
  enable_reload: z
    .boolean()
    .default(false)
    .describe('Serve POST /-/reload, which re-reads the config as SIGHUP does (behind basic auth when set). Default false, as Prometheus gates its lifecycle endpoints: anyone who can reach the port could trigger reloads.'),
});
