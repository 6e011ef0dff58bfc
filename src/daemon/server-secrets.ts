// The files the HTTP server's config names (the basic-auth password file, the
// TLS certificate and key), read at start and again at each reload so a
// rotated password or renewed certificate needs no restart.
import { readFile } from 'node:fs/promises';
import type { Config } from '../config/index.js';
import type { ServerCredentials } from '../server/index.js';

/** A file named in the config cannot be read; the message names the key and the file. */
export class ServerFileError extends Error {
  readonly code = 'EDGE_SERVER_FILE';
}

export async function readServerCredentials(config: Config): Promise<ServerCredentials> {
  const { basic_auth: auth, tls } = config.server;
  const read = async (file: string, path: string): Promise<Buffer> => {
    try {
      return await readFile(file);
    } catch (err) {
      throw new ServerFileError(`${path}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
    }
  };
  const password = auth && (auth.password ?? (await read(auth.password_file ?? '', 'server.basic_auth.password_file')).toString('utf8').trim());
  return {
    ...(auth && password !== undefined ? { basicAuth: { username: auth.username, password } } : {}),
    ...(tls ? { tls: { cert: await read(tls.cert_file, 'server.tls.cert_file'), key: await read(tls.key_file, 'server.tls.key_file') } } : {}),
  };
}
