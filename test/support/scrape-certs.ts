// A CA made with openssl for one test, and certificates it signs: a server
// certificate for 127.0.0.1 and client certificates for scrapers. A second,
// unrelated CA makes a client certificate the server must not trust.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CertPair {
  readonly cert: string;
  readonly key: string;
}

export interface TestCa extends CertPair {
  /** A certificate this CA signs; `server` adds the SAN a client checks for 127.0.0.1. */
  issue(name: string, use: 'server' | 'client'): CertPair;
}

const openssl = (args: string[]): void => void execFileSync('openssl', args, { stdio: 'ignore' });
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Makes `<name>-ca.pem` / `<name>-ca-key.pem` in `dir`; its certificates land beside them. */
export function makeCa(dir: string, name: string): TestCa {
  const ca = { cert: join(dir, `${name}-ca.pem`), key: join(dir, `${name}-ca-key.pem`) };
  openssl(['req', '-x509', ...EC, '-days', '1', '-subj', `/CN=${name} test CA`, '-keyout', ca.key, '-out', ca.cert]);
  return {
    ...ca,
    issue(certName, use) {
      const pair = { cert: join(dir, `${certName}.pem`), key: join(dir, `${certName}-key.pem`) };
      const csr = join(dir, `${certName}.csr`);
      const ext = join(dir, `${certName}.ext`);
      writeFileSync(ext, use === 'server'
        ? 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n'
        : 'extendedKeyUsage=clientAuth\n');
      openssl(['req', '-new', ...EC, '-subj', `/CN=${certName}`, '-keyout', pair.key, '-out', csr]);
      openssl(['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '1', '-extfile', ext, '-out', pair.cert]);
      return pair;
    },
  };
}
