// A TLS block's files read into what node:tls and undici take. Read when a
// client is built: at start and again at every reload, so a renewed
// certificate or CA file is picked up by a reload.
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { errnoText } from '../shared/errno-text.js';
import { EdgeError } from '../shared/errors.js';

/** A TLS block as the clients receive it (the config's ca_file, cert_file, ...). */
export interface TlsFiles {
  /** PEM CA(s) trusted in addition to the system's roots. */
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
  readonly serverName?: string;
  readonly insecureSkipVerify?: boolean;
}

/** Connect options for node:tls / undici's `connect` and `requestTls`. */
export interface TlsMaterial {
  readonly ca?: string[];
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly servername?: string;
  readonly rejectUnauthorized: boolean;
}

/**
 * Reads the files; throws (the error names the key, `<label>.ca_file`, the
 * file and its errno) when one cannot be read. A CA file is added to Node's
 * bundled roots, not put in their place (`ca` replaces them in node:tls), so a
 * corporate CA does not make every public certificate untrusted.
 */
export function readTlsFiles(files: TlsFiles | undefined, label: string): TlsMaterial {
  if (files === undefined) return { rejectUnauthorized: true };
  return {
    ...(files.caFile === undefined ? {} : { ca: [...rootCertificates, read(files.caFile, `${label}.ca_file`)] }),
    ...(files.certFile === undefined ? {} : { cert: Buffer.from(read(files.certFile, `${label}.cert_file`)) }),
    ...(files.keyFile === undefined ? {} : { key: Buffer.from(read(files.keyFile, `${label}.key_file`)) }),
    // Only when asked: Node deprecates an IP address as SNI name, and the URL's host is the default anyway.
    ...(files.serverName === undefined ? {} : { servername: files.serverName }),
    rejectUnauthorized: files.insecureSkipVerify !== true,
  };
}

/**
 * What a connection to an https:// proxy is verified with: a CA file is meant
 * for the endpoint (a TLS-inspecting proxy's CA), and the proxy is checked
 * against the same roots; the client certificate and server_name are the
 * endpoint's alone.
 */
export function proxyTls(tls: TlsMaterial): Pick<TlsMaterial, 'ca' | 'rejectUnauthorized'> {
  return { ...(tls.ca === undefined ? {} : { ca: tls.ca }), rejectUnauthorized: tls.rejectUnauthorized };
}

/** A TLS block's file that cannot be read; the message names the key and the file, never content. */
export class TlsFileError extends EdgeError {
  readonly code = 'EDGE_TLS_FILE';
}

function read(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new TlsFileError(`cannot read ${what} ${file}: ${errnoText(err)}`, { cause: err });
  }
}
