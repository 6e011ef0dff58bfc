// scripts/audit.sh decides from `npm audit --json` alone; here npm is a fake
// that prints canned output (the shapes npm 11 prints) and exits as npm would.
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ENDPOINT = 'https://registry.npmjs.org/-/npm/v1/security/advisories/bulk';

const advisory = (name: string, severity: string, title: string) => ({
  name, severity, isDirect: true, effects: [], range: '<7.0.1', nodes: [`node_modules/${name}`], fixAvailable: true,
  via: [{ source: 1101, name, dependency: name, title, url: 'https://github.com/advisories/GHSA-xxxx-yyyy-zzzz', severity, range: '<7.0.1' }],
});

function report(vulnerabilities: Record<string, object>, counts: Partial<Record<'low' | 'moderate' | 'high' | 'critical', number>>): string {
  const all = { info: 0, low: 0, moderate: 0, high: 0, critical: 0, ...counts };
  const total = all.low + all.moderate + all.high + all.critical;
  return JSON.stringify({ auditReportVersion: 2, vulnerabilities, metadata: { vulnerabilities: { ...all, total }, dependencies: { prod: 40, total: 40 } } });
}

/** What npm 11 prints when the advisory request fails (this machine's registry answers the POST with 405). */
function endpointError(message: string, statusCode?: number): string {
  return JSON.stringify({
    message, method: 'POST', uri: ENDPOINT, headers: {}, ...(statusCode ? { statusCode } : {}), body: '',
    error: { summary: '', detail: '' },
  });
}
const ENDPOINT_STDERR = `npm warn audit 405 Method Not Allowed - POST ${ENDPOINT}\nnpm error audit endpoint returned an error\n`;

let dir: string;
let fake: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'edge-audit-'));
  fake = join(dir, 'npm');
  writeFileSync(fake, '#!/usr/bin/env bash\necho "$*" > "$FAKE_DIR/args"\ncat "$FAKE_DIR/out"\ncat "$FAKE_DIR/err" >&2\nexit "$FAKE_STATUS"\n', { mode: 0o755 });
});

function audit(stdout: string, stderr: string, npmStatus: number, env: Record<string, string> = {}) {
  writeFileSync(join(dir, 'out'), stdout);
  writeFileSync(join(dir, 'err'), stderr);
  const r = spawnSync('bash', ['scripts/audit.sh'], {
    env: { ...process.env, AUDIT_REQUIRED: '', ...env, AUDIT_NPM: fake, FAKE_DIR: dir, FAKE_STATUS: String(npmStatus) },
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr, args: readFileSync(join(dir, 'args'), 'utf8').trim() };
}

describe('scripts/audit.sh', () => {
  it('audits the production dependencies at level high, as JSON', () => {
    expect(audit(report({}, {}), '', 0).args).toBe('audit --omit=dev --audit-level=high --json');
  });

  it.each([
    ['a high advisory', { undici: advisory('undici', 'high', 'Proxy-Authorization header kept across origins') }, { high: 1 }, 'high     undici <7.0.1: Proxy-Authorization header kept across origins'],
    ['a critical one among low ones', { pino: advisory('pino', 'critical', 'Prototype pollution'), yaml: advisory('yaml', 'low', 'ReDoS') }, { critical: 1, low: 1 }, 'critical pino <7.0.1: Prototype pollution'],
  ])('fails on %s, naming each package and advisory', (_name, vulns, counts, line) => {
    const r = audit(report(vulns, counts), '', 1);
    expect(r.code).toBe(1);
    expect(r.err).toContain('FAILED');
    expect(r.err).toContain(line);
    expect(r.err).not.toContain('ReDoS');
  });

  it.each([
    ['only low and moderate advisories', report({ yaml: advisory('yaml', 'low', 'ReDoS'), zod: advisory('zod', 'moderate', 'x') }, { low: 1, moderate: 1 }), '0 critical, 0 high, 1 moderate, 1 low'],
    ['no advisory', report({}, {}), '0 critical, 0 high, 0 moderate, 0 low'],
  ])('passes with %s', (_name, stdout, summary) => {
    const r = audit(stdout, '', 0);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`no high or critical advisory (${summary})`);
    expect(r.err).toBe('');
  });

  it.each([
    ['405 from the registry', endpointError(`405 Method Not Allowed - POST ${ENDPOINT}`, 405), ENDPOINT_STDERR, `405 Method Not Allowed - POST ${ENDPOINT}`],
    ['no network', endpointError(`request to ${ENDPOINT} failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org`),
      'npm error audit endpoint returned an error\n', `request to ${ENDPOINT} failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org`],
  ])('endpoint unavailable (%s): says loudly no audit was performed, exit 0; exit 2 with AUDIT_REQUIRED=1', (_name, stdout, stderr, reason) => {
    const lenient = audit(stdout, stderr, 1);
    expect(lenient.code).toBe(0);
    expect(lenient.err).toContain('## npm audit was NOT performed: the advisory endpoint is unavailable.');
    expect(lenient.err).toContain(`## reason: ${reason}`);
    expect(lenient.err).toContain('have NOT been checked');
    const strict = audit(stdout, stderr, 1, { AUDIT_REQUIRED: '1' });
    expect(strict.code).toBe(2);
    expect(strict.err).toContain('## AUDIT_REQUIRED=1: failing.');
  });

  it.each([
    ['a missing lockfile', JSON.stringify({ error: { code: 'ENOLOCK', summary: 'This command requires an existing lockfile.', detail: '' } }), 'npm error code ENOLOCK\n', 'This command requires an existing lockfile.'],
    ['no output at all', '', 'Segmentation fault\n', 'npm exited with status 139 and no report'],
  ])('any other failure to audit (%s) fails, whatever AUDIT_REQUIRED says', (_name, stdout, stderr, reason) => {
    const r = audit(stdout, stderr, stdout === '' ? 139 : 1);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`npm audit could not run: ${reason}`);
    expect(r.err).not.toContain('NOT performed');
  });
});
