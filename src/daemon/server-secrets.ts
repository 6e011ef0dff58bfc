// The files the HTTP server's config names (the basic-auth password file, the
// TLS certificate, key and client CA, from `server:` or the web config file),
// read at start and again at each reload so a rotated password or renewed
// certificate needs no restart.
import { readFile } from 'node:fs/promises';
import type { Config } from '../config/index.js';
import type { ServerCredentials, TlsPair } from '../server/index.js';
import { errnoText } from '../shared/errno-text.js';
import { EdgeError } from '../shared/errors.js';

/** A file named in the config cannot be read; the message names the key and the file. */
export class ServerFileError extends EdgeError {
  readonly code = 'EDGE_SERVER_FILE';
}

type Read = (file: string, path: string) => Promise<Buffer>;

const read: Read = async (file, path) => {
  try {
    return await readFile(file);
  } catch (err) {
    throw new ServerFileError(`${path}: cannot read ${file}: ${errnoText(err)}`, { cause: err });
  }
};

/** The config loader refuses TLS or basic auth set both in `server:` and in the web config, so each comes from one place. */
export async function readServerCredentials(config: Config): Promise<ServerCredentials> {
  const basicAuth = await readBasicAuth(config);
  const tls = await readTls(config);
  return { ...(basicAuth ? { basicAuth } : {}), ...(tls ? { tls } : {}) };
}

async function readBasicAuth(config: Config): Promise<ServerCredentials['basicAuth']> {
  const auth = config.server.basic_auth;
  const users = config.web_config?.users;
  if (!auth) return users && { users: new Map(Object.entries(users)) };
  if (auth.password_hash !== undefined) return { users: new Map([[auth.username, auth.password_hash]]) };
  const password = auth.password ?? (await read(auth.password_file ?? '', 'server.basic_auth.password_file')).toString('utf8').trim();
  return { username: auth.username, password };
}

async function readTls(config: Config): Promise<TlsPair | undefined> {
  const web = config.server.tls ? undefined : config.web_config;
  const tls = config.server.tls ?? web?.tls;
  if (!tls) return undefined;
  const at = web ? `${web.file} tls_server_config` : 'server.tls';
  return {
    cert: await read(tls.cert_file, `${at}.cert_file`),
    key: await read(tls.key_file, `${at}.key_file`),
    ...(tls.client_ca_file === undefined ? {} : { ca: await read(tls.client_ca_file, `${at}.client_ca_file`) }),
    clientAuth: tls.client_auth,
    ...(web?.tls?.min_version === undefined ? {} : { minVersion: web.tls.min_version }),
    ...(web?.tls?.max_version === undefined ? {} : { maxVersion: web.tls.max_version }),
  };
}
