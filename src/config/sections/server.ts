// `server:` — where /metrics is served and how it is protected.
import { z } from 'zod';
import { basicAuth, listenAddress } from '../fields.js';

const basicAuthSchema = basicAuth('server.basic_auth', {
  username: 'User name Prometheus sends (no default).',
  passwordFile: 'File whose content (trimmed) is the password.',
});

const tlsSchema = z.strictObject({
  cert_file: z.string().min(1).describe('PEM certificate (chain) file.'),
  key_file: z.string().min(1).describe('PEM private key file.'),
});

export const serverSchema = z.strictObject({
  listen: listenAddress()
    .default('0.0.0.0:9810')
    .describe('HOST:PORT for /metrics, /healthz, /readyz and the landing page (default 0.0.0.0:9810). `run --listen` overrides it. Changed only by a restart: a reload that changes it is refused.'),
  basic_auth: basicAuthSchema.optional().describe('Require HTTP basic auth for /metrics, /-/reload and the landing page (the probes stay open). Default: off. A reload re-reads it and its password_file.'),
  tls: tlsSchema.optional().describe('Serve HTTPS with this certificate and key. Default: plain HTTP. A reload re-reads both files (a renewed certificate); turning TLS on or off needs a restart.'),
  enable_reload: z
    .boolean()
    .default(false)
    .describe('Serve POST /-/reload, which re-reads the config as SIGHUP does (behind basic auth when set). Default false, as Prometheus gates its lifecycle endpoints: anyone who can reach the port could trigger reloads.'),
});

export type ServerConfig = z.output<typeof serverSchema>;
