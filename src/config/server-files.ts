// The files the HTTP server reads at start-up (basic-auth password, TLS
// certificate, key and client CA), checked at load like upstream.token_file: otherwise a
// missing or wrong file surfaces only once the daemon is half up, and
// check-config would call the config OK. Problems never quote a file's content.
import { KeyObject, X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { PathProblem } from './env.js';
import { isUsableSecret } from './fields.js';
import { errnoText } from '../shared/errno-text.js';

/** Problems with the server files the document names; values of the wrong type are left to the schema. */
export function serverFileProblems(document: unknown): PathProblem[] {
  const server = get(document, 'server');
  return [...passwordFileProblems(get(server, 'basic_auth')), ...tlsFileProblems(get(server, 'tls'), ['server', 'tls'])];
}

function passwordFileProblems(auth: unknown): PathProblem[] {
  const file = get(auth, 'password_file');
  if (typeof file !== 'string' || file === '' || get(auth, 'password') !== undefined) return [];
  const path = ['server', 'basic_auth', 'password_file'];
  const content = read(file);
  if (typeof content !== 'string') return [{ path, message: content.problem }];
  const password = content.trim();
  if (isUsableSecret(password)) return [];
  return [{ path, message: password === '' ? 'the password file is empty' : 'the password file must hold one line without control characters' }];
}

/** Problems with the TLS files a `tls` block (server.tls, or a web config's tls_server_config at `at`) names. */
export function tlsFileProblems(tls: unknown, at: readonly string[]): PathProblem[] {
  const problems: PathProblem[] = [];
  const file = (key: string, parse: (pem: string) => unknown, what: string) => pemFile(get(tls, key), [...at, key], parse, what, problems);
  const cert = file('cert_file', (pem) => new X509Certificate(pem), 'a PEM certificate');
  const key = file('key_file', (pem) => createPrivateKey(pem), 'an unencrypted PEM private key');
  file('client_ca_file', (pem) => new X509Certificate(pem), 'a PEM file of CA certificates');
  if (cert instanceof X509Certificate && key instanceof KeyObject && !cert.checkPrivateKey(key)) {
    problems.push({ path: [...at, 'key_file'], message: `does not match the certificate in ${[...at, 'cert_file'].join('.')}` });
  }
  return problems;
}

/** The parsed content of the file at `path`, or undefined with a problem added. */
function pemFile<T>(file: unknown, path: string[], parse: (pem: string) => T, what: string, problems: PathProblem[]): T | undefined {
  if (typeof file !== 'string' || file === '') return undefined;
  const content = read(file);
  if (typeof content !== 'string') {
    problems.push({ path, message: content.problem });
    return undefined;
  }
  try {
    return parse(content);
  } catch {
    problems.push({ path, message: `is not ${what}` });
    return undefined;
  }
}

function read(file: string): string | { problem: string } {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    return { problem: `cannot read ${file}: ${errnoText(err)}` };
  }
}

function get(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}
