// `run --web.config.file`: exporter-toolkit's web-config format, so an
// operator reuses the file their other exporters already read. What maps onto
// Node's TLS server is taken as those exporters take it (relative paths
// against the file's directory, the same defaults); what does not is refused
// naming the key, never silently weakened. The result has the shape of
// `server.tls` plus bcrypt users, for the server to apply.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import type { PathProblem } from './env.js';
import { ConfigError, type ConfigProblem } from './errors.js';
import { dottedPath, issueMessage, issueProblems } from './issues.js';
import { bcryptHash, type ClientAuthMode } from './sections/server.js';
import { tlsFileProblems } from './server-files.js';
import { parseYaml } from './yaml-source.js';
import { errnoText } from '../shared/errno-text.js';

/** TLS versions as exporter-toolkit names them, and as Node's TLS options do. */
const TLS_VERSIONS = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;
type TlsVersion = (typeof TLS_VERSIONS)[keyof typeof TLS_VERSIONS];

/** exporter-toolkit's client_auth_type values Node's TLS server can enforce, as `server.tls.client_auth` modes. */
const CLIENT_AUTH_TYPES: Readonly<Record<string, ClientAuthMode>> = {
  NoClientCert: 'none',
  RequestClientCert: 'request',
  RequireAndVerifyClientCert: 'require_and_verify',
};
/** The values exporter-toolkit knows that Node's TLS server cannot enforce during the handshake. */
const REFUSED_CLIENT_AUTH: Readonly<Record<string, string>> = {
  RequireAnyClientCert: 'requires a certificate without verifying it',
  RequireClientCert: 'requires a certificate without verifying it',
  VerifyClientCertIfGiven: 'verifies a certificate only when one is given',
};

export interface WebConfigTls {
  readonly cert_file: string;
  readonly key_file: string;
  readonly client_ca_file?: string;
  readonly client_auth: ClientAuthMode;
  readonly min_version?: TlsVersion;
  readonly max_version?: TlsVersion;
}

export interface WebConfig {
  /** The file as given, for messages. */
  readonly file: string;
  /** Absent: plain HTTP (tls_server_config absent or empty, as exporter-toolkit reads it). */
  readonly tls?: WebConfigTls;
  /** User name -> bcrypt hash; absent when basic_auth_users is empty. */
  readonly users?: Readonly<Record<string, string>>;
}

/** A key exporter-toolkit knows that this server refuses, and why. */
const unsupported = (why: string) => z.unknown().refine(() => false, { error: `not supported by edge-exporter: ${why}` }).optional();

const tlsVersion = z.enum(Object.keys(TLS_VERSIONS) as [keyof typeof TLS_VERSIONS]).optional();

const tlsServerConfig = z.strictObject({
  cert_file: z.string().optional(),
  key_file: z.string().optional(),
  client_ca_file: z.string().optional(),
  client_auth_type: z.string().optional(),
  min_version: tlsVersion,
  max_version: tlsVersion,
  // Accepted with no effect: Go itself has ignored it since 1.17, so no file depends on it.
  prefer_server_cipher_suites: z.boolean().optional(),
  cert: unsupported('an inline certificate; use cert_file'),
  key: unsupported('an inline key; use key_file'),
  client_ca: unsupported('an inline client CA; use client_ca_file'),
  cipher_suites: unsupported('Go\'s cipher suite names are not mapped onto OpenSSL\'s here; remove the list to use Node\'s defaults (node -p tls.DEFAULT_CIPHERS), or put a TLS proxy in front'),
  curve_preferences: unsupported('remove it to use Node\'s defaults'),
  client_allowed_sans: unsupported('checking client certificate SANs; issue client certificates from a CA that signs only scrapers'),
});

const webConfigSchema = z.strictObject({
  tls_server_config: tlsServerConfig.nullish(),
  http_server_config: z
    .strictObject({
      // This server speaks HTTP/1.1 only, which Prometheus scrapes over either way.
      http2: z.boolean().optional(),
      headers: unsupported('extra response headers'),
    })
    .nullish(),
  basic_auth_users: z.record(z.string().min(1), bcryptHash()).nullish(),
  rate_limit: unsupported('a request rate limit on the server'),
});

type ParsedTls = z.output<typeof tlsServerConfig>;

/** Reads and checks the file (and the certificate files it names); throws ConfigError naming the file and each key. */
export function loadWebConfig(file: string): WebConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [{ path: '', message: `cannot read the web config file: ${errnoText(err)}` }], { cause: err });
  }
  const yaml = parseYaml(text);
  if (yaml.errors.length > 0) throw new ConfigError(file, yaml.errors.map((e) => ({ path: '', message: e.message, ...e.position })));
  const parsed = webConfigSchema.safeParse(yaml.data ?? {}, { error: issueMessage });
  const problems = parsed.success
    ? []
    : issueProblems(parsed.error.issues, z.toJSONSchema(webConfigSchema, { io: 'input', unrepresentable: 'any' }));
  let config: WebConfig | undefined;
  if (parsed.success) {
    const tlsInput = parsed.data.tls_server_config;
    const tls = tlsInput ? webTls(tlsInput, dirname(file), problems) : undefined;
    const users = parsed.data.basic_auth_users ?? {};
    config = { file, ...(tls ? { tls } : {}), ...(Object.keys(users).length > 0 ? { users } : {}) };
  }
  if (problems.length > 0 || config === undefined) {
    throw new ConfigError(file, problems.map((p): ConfigProblem => ({ path: dottedPath(p.path), message: p.message, ...yaml.locate(p.path) })));
  }
  return config;
}

/** tls_server_config as server.tls would say it, paths resolved against the file's directory; undefined when empty (plain HTTP). */
function webTls(input: ParsedTls, dir: string, problems: PathProblem[]): WebConfigTls | undefined {
  // exporter-toolkit's TLSConfig.IsEnabled: only these keys turn TLS on (a lone min_version does not).
  if ([input.cert_file, input.key_file, input.client_ca_file, input.client_auth_type].every((v) => v === undefined || v === '')) return undefined;
  const at = (key: string) => ['tls_server_config', key];
  const path = (p: string | undefined) => (p === undefined || p === '' ? undefined : resolve(dir, p));
  const [cert, key, ca] = [path(input.cert_file), path(input.key_file), path(input.client_ca_file)];
  if (cert === undefined) problems.push({ path: at('cert_file'), message: 'required when tls_server_config is set' });
  if (key === undefined) problems.push({ path: at('key_file'), message: 'required when tls_server_config is set' });
  const type = input.client_auth_type ?? 'NoClientCert';
  const mode = CLIENT_AUTH_TYPES[type === '' ? 'NoClientCert' : type];
  const refused = REFUSED_CLIENT_AUTH[type];
  if (refused !== undefined) {
    problems.push({ path: at('client_auth_type'), message: `${type} is not supported by edge-exporter: Node's TLS server cannot enforce a policy that ${refused}; use RequireAndVerifyClientCert with client_ca_file` });
  } else if (mode === undefined) {
    problems.push({ path: at('client_auth_type'), message: `expected one of: ${Object.keys(CLIENT_AUTH_TYPES).join(', ')}` });
  } else if (mode === 'none' && ca !== undefined) {
    problems.push({ path: at('client_ca_file'), message: 'client_ca_file is set but client_auth_type is NoClientCert (exporter-toolkit refuses this too): set client_auth_type: RequireAndVerifyClientCert' });
  } else if (mode === 'require_and_verify' && ca === undefined) {
    problems.push({ path: at('client_ca_file'), message: 'RequireAndVerifyClientCert needs client_ca_file here: without it any certificate a public CA signed would pass' });
  }
  const min = input.min_version === undefined ? undefined : TLS_VERSIONS[input.min_version];
  const max = input.max_version === undefined ? undefined : TLS_VERSIONS[input.max_version];
  if (input.min_version !== undefined && input.max_version !== undefined && input.min_version > input.max_version) {
    problems.push({ path: at('max_version'), message: 'must not be below min_version' });
  }
  if (cert === undefined || key === undefined || mode === undefined) return undefined;
  problems.push(...tlsFileProblems({ cert_file: cert, key_file: key, client_ca_file: ca }, ['tls_server_config']));
  return {
    cert_file: cert, key_file: key, client_auth: mode,
    ...(ca === undefined ? {} : { client_ca_file: ca }),
    ...(min === undefined ? {} : { min_version: min }),
    ...(max === undefined ? {} : { max_version: max }),
  };
}
