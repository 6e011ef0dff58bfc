// The demo's log and WAF delivery as `npm start` writes them
// (config.example.yaml, the bundled simulator). As shipped, otlp.endpoint is
// unset and the demo's receiver beside the simulator confirms the records, so WAF
// events flow end to end with no warning. With an endpoint where no OTLP
// receiver listens, the failing delivery is one warning, however many times it
// is retried, and that warning names the endpoint and says what to do; the
// endpoint is a closed loopback port (another test's collector may hold 4318),
// and a short OTLP timeout keeps each failed attempt short.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { readExposition } from '../support/exposition-reader.js';
import { freePort } from '../support/ports.js';
import { Capture } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'edge-demo-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The sum of a family's series as /metrics shows them, read strictly (0 before its first series). */
async function metricSum(metricsUrl: string, family: string): Promise<number> {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
  const samples = readExposition(text, 'text').find((f) => f.name === family)?.samples ?? [];
  return samples.reduce((sum, sample) => sum + Number(sample.value), 0);
}

const exportFailures = (metricsUrl: string): Promise<number> => metricSum(metricsUrl, 'edge_exporter_waf_export_failures_total');

/** config.example.yaml as shipped, with its own state directory under `name`. */
function exampleConfig(name: string): string {
  const example = readFileSync(new URL('../../config.example.yaml', import.meta.url), 'utf8');
  const stateLine = /^state_dir: \.\/state\b/m;
  expect(example).toMatch(stateLine);
  const config = join(dir, `${name}.yaml`);
  writeFileSync(config, example.replace(stateLine, `state_dir: ${JSON.stringify(join(dir, `state-${name}`))}`));
  return config;
}

type LogLine = Record<string, unknown>;
const parsed = (text: string): LogLine[] => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as LogLine);

/** The delivery path's warnings (the forwarder's and the OTLP client's). */
const deliveryWarnings = (lines: LogLine[]): LogLine[] =>
  lines.filter((l) => l['level'] === 'warn' && (l['component'] === 'waf-events' || l['component'] === 'otlp'));

describe('the demo as shipped', () => {
  it('forwards WAF events to the receiver beside the bundled simulator: forwarded, counted by rule, no failure, no warning', async () => {
    const config = exampleConfig('shipped');
    const stop = new AbortController();
    const stdout = new Capture();
    const ran = main(['run', '--config', config, '--listen', '127.0.0.1:0'], { stdout, stderr: new Capture(), env: {} }, stop.signal);
    try {
      await expect.poll(() => stdout.text, { timeout: 10_000 }).toContain('serving metrics');
      const started = parsed(stdout.text);
      const metricsUrl = String(started.find((l) => l['msg'] === 'serving metrics')?.['url']);
      const simulator = String(started.find((l) => String(l['msg']).startsWith('bundled simulator listening'))?.['url']);
      const route = started.find((l) => String(l['msg']).startsWith('otlp: '));
      // The demo's receiver: loopback, on the simulator's host, reached directly.
      expect(route?.['msg']).toMatch(/^otlp: http:\/\/127\.0\.0\.1:\d+\/v1\/logs via direct \(the demo's receiver: confirms every record, keeps none; set otlp\.endpoint for a collector\)$/);
      expect(new URL(String(route?.['endpoint'])).port).not.toBe(new URL(simulator).port);

      // The first poll reads the hour before start (start_from: 1h): the simulator's account denies requests every minute.
      await expect.poll(() => metricSum(metricsUrl, 'edge_exporter_waf_events_forwarded_total'), { timeout: 60_000, interval: 200 }).toBeGreaterThan(0);
      // Every event forwarded is counted once by domain, rule and severity (each batch's counts are taken as it is confirmed).
      await expect
        .poll(async () => {
          const [forwarded, denied] = await Promise.all([
            metricSum(metricsUrl, 'edge_exporter_waf_events_forwarded_total'), metricSum(metricsUrl, 'edge_waf_denied_requests_total'),
          ]);
          return denied === forwarded;
        }, { timeout: 10_000, interval: 200 })
        .toBe(true);
      expect(await exportFailures(metricsUrl)).toBe(0);
      expect(deliveryWarnings(parsed(stdout.text))).toEqual([]);
    } finally {
      stop.abort();
    }
    expect(await ran).toBe(0);
  }, 90_000);
});

describe('the demo with no OTLP receiver', () => {
  it('warns once for the failing delivery, naming the endpoint and what to do, while every retry is counted', async () => {
    const config = exampleConfig('closed');
    const endpoint = `http://127.0.0.1:${await freePort()}/v1/logs`;
    const env = { OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_LOGS_TIMEOUT: '1000' };

    const stop = new AbortController();
    const stdout = new Capture();
    const ran = main(['run', '--config', config, '--listen', '127.0.0.1:0'], { stdout, stderr: new Capture(), env }, stop.signal);
    try {
      await expect.poll(() => stdout.text, { timeout: 10_000 }).toContain('serving metrics');
      const metricsUrl = String(parsed(stdout.text).find((l) => l['msg'] === 'serving metrics')?.['url']);
      // Three failed attempts: the first and two retries.
      await expect.poll(() => exportFailures(metricsUrl), { timeout: 60_000, interval: 200 }).toBeGreaterThanOrEqual(3);

      // A collector may also warn of a skipped tick when a loaded machine makes a 1-minute cycle outlast its
      // interval: true, and not what this test is about.
      const warnings = deliveryWarnings(parsed(stdout.text));
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
