// The demo's log as `npm start` writes it (config.example.yaml, the bundled
// simulator) when no OTLP receiver listens, which is how most first runs go:
// the failing WAF delivery is one warning, however many times it is retried,
// and that warning names the endpoint and says what to do. The endpoint is a
// closed loopback port (another test's collector may hold 4318), and a short
// OTLP timeout keeps each failed attempt short; the rest is the example as shipped.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { freePort } from '../support/ports.js';
import { Capture } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'edge-demo-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** edge_exporter_waf_export_failures_total as /metrics shows it (0 before the first failure). */
async function exportFailures(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
  const line = text.split('\n').find((l) => l.startsWith('edge_exporter_waf_export_failures_total'));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('the demo with no OTLP receiver', () => {
  it('warns once for the failing delivery, naming the endpoint and what to do, while every retry is counted', async () => {
    const example = readFileSync(new URL('../../config.example.yaml', import.meta.url), 'utf8');
    const stateLine = /^state_dir: \.\/state\b/m;
    expect(example).toMatch(stateLine);
    const config = join(dir, 'config.yaml');
    writeFileSync(config, example.replace(stateLine, `state_dir: ${JSON.stringify(join(dir, 'state'))}`));
    const endpoint = `http://127.0.0.1:${await freePort()}/v1/logs`;
    const env = { OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_LOGS_TIMEOUT: '1000' };

    const stop = new AbortController();
    const stdout = new Capture();
    const ran = main(['run', '--config', config, '--listen', '127.0.0.1:0'], { stdout, stderr: new Capture(), env }, stop.signal);
    try {
      await expect.poll(() => stdout.text, { timeout: 10_000 }).toContain('serving metrics');
      const lines = (): Record<string, unknown>[] => stdout.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
      const metricsUrl = String(lines().find((l) => l['msg'] === 'serving metrics')?.['url']);
      // Three failed attempts: the first and two retries.
      await expect.poll(() => exportFailures(metricsUrl), { timeout: 60_000, interval: 200 }).toBeGreaterThanOrEqual(3);

      // The delivery path's warnings (the forwarder's and the OTLP client's). A collector may also warn of a skipped
      // tick when a loaded machine makes a 1-minute cycle outlast its interval: true, and not what this test is about.
      const warnings = lines().filter((l) => l['level'] === 'warn' && (l['component'] === 'waf-events' || l['component'] === 'otlp'));
      expect(warnings.map((w) => w['msg'])).toEqual([expect.stringMatching(/^delivering WAF events failed/)]);
      const [warning] = warnings;
      expect(warning).toMatchObject({ endpoint, reason: 'ECONNREFUSED' });
      for (const what of ['start an OpenTelemetry Collector', 'set otlp.endpoint', 'waf_events.enabled: false']) expect(warning?.['hint']).toContain(what);
    } finally {
      stop.abort();
    }
    expect(await ran).toBe(0);
  }, 90_000);
});

describe('run with log.format', () => {
  it('pretty: readable lines, even where the log is not a terminal', async () => {
    const config = join(dir, 'pretty.yaml');
    writeFileSync(config, [
      'simulator: { enabled: true, domains: 2 }',
      'log: { format: pretty }',
      'waf_events: { enabled: false }',
      `state_dir: ${JSON.stringify(join(dir, 'state-pretty'))}`,
    ].join('\n'));
    const stop = new AbortController();
    const stdout = new Capture();
    const ran = main(['run', '--config', config, '--listen', '127.0.0.1:0'], { stdout, stderr: new Capture(), env: {} }, stop.signal);
    try {
      await expect.poll(() => stdout.text, { timeout: 10_000 }).toContain('serving metrics');
    } finally {
      stop.abort();
    }
    expect(await ran).toBe(0);
    expect(stdout.text).toMatch(/^\[\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\] INFO: serving metrics \{"url":"http:\/\/127\.0\.0\.1:\d+\/metrics"\}$/m);
    expect(stdout.text.split('\n').filter((l) => l.startsWith('{'))).toEqual([]);
  });
});
