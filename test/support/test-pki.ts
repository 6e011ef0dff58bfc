// A throwaway PKI made with openssl for the TLS tests: a CA (trusted by
// nothing on the machine), a server certificate it signed for 127.0.0.1 (the
// only address tests may reach) and the name edge-api.test (for server_name;
// never resolved), and a client certificate it signed.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestPki {
  readonly caFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  /** PEM contents, for servers started in the test. */
  readonly ca: Buffer;
  readonly serverCert: Buffer;
  readonly serverKey: Buffer;
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(args: readonly string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}

/** Writes the PKI into `dir` (which the caller removes). */
export function makeTestPki(dir: string): TestPki {
  const f = (name: string): string => join(dir, name);
  openssl(['req', '-x509', ...EC, '-days', '1', '-subj', '/CN=edge-exporter test CA', '-keyout', f('ca.key'), '-out', f('ca.pem'),
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  const leaf = (name: string, cn: string, ext: string): void => {
    writeFileSync(f(`${name}.ext`), ext);
    openssl(['req', ...EC, '-subj', `/CN=${cn}`, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`)]);
    openssl(['x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-days', '1',
      '-out', f(`${name}.pem`), '-extfile', f(`${name}.ext`)]);
  };
  leaf('server', '127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:edge-api.test\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  leaf('client', 'edge-exporter', 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n');
  return {
    caFile: f('ca.pem'),
    serverCertFile: f('server.pem'),
    serverKeyFile: f('server.key'),
    clientCertFile: f('client.pem'),
    clientKeyFile: f('client.key'),
    ca: readFileSync(f('ca.pem')),
    serverCert: readFileSync(f('server.pem')),
    serverKey: readFileSync(f('server.key')),
  };
}
