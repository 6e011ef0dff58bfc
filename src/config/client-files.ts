// The TLS files of the outbound clients (upstream.tls, otlp.tls,
// otlp_metrics.tls, remote_write.tls, each account's upstream.tls), checked at load as the server's are (server-files.ts):
// check-config and `run` name a missing or wrong file before anything
// starts. The clients read them again when they are built (start, reload).
// Problems never quote a file's content.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { PathProblem, YamlPath } from './env.js';
import { OUTBOUND_NAMES } from '../outbound/index.js';
import { errnoText } from '../shared/errno-text.js';

/** What each key must hold, and how it is told. */
const KINDS = [
  ['ca_file', 'PEM CA certificate(s)', (pem: string) => new X509Certificate(pem)],
  ['cert_file', 'a PEM certificate', (pem: string) => new X509Certificate(pem)],
  ['key_file', 'an unencrypted PEM private key', (pem: string) => createPrivateKey(pem)],
] as const;

export function clientFileProblems(document: unknown): PathProblem[] {
  const problems: PathProblem[] = [];
  const entries = get(document, 'accounts');
  const sections: YamlPath[] = [
    ...OUTBOUND_NAMES.map((section) => [section]),
    // Each account's upstream, as merged over the top level's at load.
    ...(Array.isArray(entries) ? entries.map((_, i) => ['accounts', i, 'upstream']) : []),
  ];
  for (const section of sections) {
    const tls = get(section.reduce<unknown>(get, document), 'tls');
    for (const [key, what, parse] of KINDS) {
      const file = get(tls, key);
      if (typeof file !== 'string' || file === '') continue;
      const path = [...section, 'tls', key];
      let content: string;
      try {
        content = readFileSync(file, 'utf8');
      } catch (err) {
        problems.push({ path, message: `cannot read ${file}: ${errnoText(err)}` });
        continue;
      }
      try {
        parse(content);
      } catch {
        problems.push({ path, message: `does not hold ${what}` });
      }
    }
  }
  return problems;
}

function get(value: unknown, key: string | number): unknown {
  if (Array.isArray(value)) return typeof key === 'number' ? (value[key] as unknown) : undefined;
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
