// Every field of the forwarded WAF log records, as the OTLP receiver decoded
// them (protobuf and JSON), against the simulator's own events. Expected
// values are derived here from the upstream record, independently of the
// converter.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { type WafRecord } from '../../src/simulator/waf.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedLogRecord } from '../support/otlp-receiver.js';

const TOKEN = 'records-token-4c1d';
const SEVERITY_NUMBER: Record<string, number> = { 高风险: 17, 中风险: 13, 低风险: 9 };

let sim: Simulator | undefined;
let receiver: OtlpReceiver | undefined;
let daemon: Daemon | undefined;

afterEach(async () => {
  await daemon?.stop();
  await receiver?.close();
  await sim?.close();
});

const quiet = new Writable({ write: (_c, _e, done) => done() });

function header(record: WafRecord, name: string): string | undefined {
  const key = Object.keys(record.request.headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : record.request.headers[key];
}

function expectRecord(got: ReceivedLogRecord, record: WafRecord): void {
  const [path, query] = record.request.uri.split(/\?(.*)/s, 2);
  const host = header(record, 'host')?.replace(/:\d+$/, '');
  expect(got.timeUnixNano).toBe(BigInt(Date.parse(record.timeStamp)) * 1_000_000n);
  expect(got.observedTimeUnixNano >= got.timeUnixNano).toBe(true);
  expect(got.severityNumber).toBe(SEVERITY_NUMBER[record.severityLevel]);
  expect(got.severityText).toBe(record.severityLevel);
  expect(got.eventName).toBe('edge.waf.deny');
  expect(typeof got.body === 'string' && got.body.includes(record.request.method) && got.body.includes(path ?? '')).toBe(true);
  const a = got.attributes;
  expect(a['log.record.uid']).toBe(record.requestId);
  expect(a['http.request.method']).toBe(record.request.method);
  expect(a['url.path']).toBe(path);
  if (query !== undefined && !/(^|&)(sig|Signature|AWSAccessKeyId|X-Goog-Signature)=/.test(query)) expect(a['url.query']).toBe(query);
  expect(Number(a['http.response.status_code'])).toBe(417);
  expect(a['client.address']).toBe(record.clientIp);
  expect(Number(a['server.port'])).toBe(record.hostPort);
  expect(a['server.address']).toBe(host);
  expect(a['user_agent.original']).toBe(header(record, 'user-agent'));
  expect(a['http.request.header.host']).toEqual([header(record, 'host')]);
  for (const secret of ['authorization', 'cookie', 'set-cookie', 'proxy-authorization']) expect(a[`http.request.header.${secret}`]).toBeUndefined();
  const rule = record.rules[0];
  expect(a['security_rule.uuid']).toBe(rule?.ruleId);
  expect(a['security_rule.description']).toBe(rule?.ruleMessage);
  expect(a['security_rule.category']).toBe(rule?.group);
  expect(a['edge.waf.policy_id']).toBe(record.wafId);
  expect(a['edge.waf.package_id']).toBe(record.oid);
  expect(a['edge.waf.action']).toBe('deny');
  expect(JSON.parse(String(a['edge.waf.rules']))).toEqual(record.rules);
  expect(got.resource['service.name']).toBe('edge-exporter');
  expect(got.resource['service.version']).toBe('records-test');
  expect(typeof got.resource['service.instance.id']).toBe('string');
}

describe.each(['http/protobuf', 'http/json'] as const)('forwarded WAF records over %s', (protocol) => {
  it('carry every field of the simulator event they came from, and nothing else is forwarded', async () => {
    sim = createSimulator({ domains: 120, wafIngestLagMs: 1_000, tokens: [{ token: TOKEN, permissions: '*' }] });
    const { url } = await sim.listen('127.0.0.1', 0);
    receiver = await startOtlpReceiver();
    const text = [
      `upstream: { api_url: "${url}", token: "${TOKEN}" }`,
      `state_dir: ${mkdtempSync(join(tmpdir(), 'edge-waf-records-'))}`,
      'server: { listen: "127.0.0.1:0" }',
      'collectors:',
      ...['access', 'usage', 'topn', 'cc_attack', 'waf_trend', 'inventory'].map((c) => `  ${c}: { enabled: false }`),
      'waf_events: { enabled: true, interval: 1s, delay: 2s, overlap: 5s, max_window: 5m, start_from: 3m }',
      `otlp: { endpoint: "${receiver.url}", protocol: ${protocol}, timeout: 2s, headers: { x-api-key: k-123 } }`,
    ].join('\n');
    const started = Date.now();
    daemon = new Daemon({ config: loadConfig({ text, env: {} }), logger: createLogger({ level: 'warn', destination: quiet }), version: 'records-test' });
    const base = await daemon.start();
    const current = sim;
    const expected = current.truth.wafEvents(started - 170_000, started - 10_000).filter((e) => e.record.response.httpCode === 417);
    expect(expected.length).toBeGreaterThan(10);
    const received = receiver;
    await expect.poll(() => expected.filter((e) => !received.uids().includes(e.record.requestId)).length, { timeout: 20_000 }).toBe(0);

    const byUid = new Map(received.records().map((r) => [String(r.attributes['log.record.uid']), r]));
    for (const e of expected) expectRecord(byUid.get(e.record.requestId)!, e.record);
    const denied = new Set(current.truth.wafEvents(started - 200_000, Date.now()).filter((e) => e.record.response.httpCode === 417).map((e) => e.record.requestId));
    expect([...byUid.keys()].filter((uid) => !denied.has(uid))).toEqual([]);
    expect(received.requests().every((r) => r.headers['x-api-key'] === 'k-123')).toBe(true);
    expect(received.requests()[0]?.encoding).toBe(protocol === 'http/json' ? 'json' : 'protobuf');

    let metrics = '';
    const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
    // The daemon keeps polling: a batch the receiver holds is counted as forwarded only once its
    // confirmation is back, so the two are compared when no batch is in flight, not at any instant.
    await expect.poll(async () => {
      metrics = await (await fetch(`${base}/metrics`)).text();
      return value('edge_exporter_waf_events_forwarded_total') - new Set(received.uids()).size;
    }, { timeout: 10_000 }).toBe(0);
    expect(value('edge_exporter_waf_events_read_total')).toBeGreaterThanOrEqual(value('edge_exporter_waf_events_forwarded_total'));
    expect(value('edge_exporter_waf_checkpoint_lag_seconds')).toBeGreaterThan(0);
    // Every metric collector is disabled here: nothing to wait for before ready.
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  }, 60_000);
});
