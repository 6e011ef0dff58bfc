// OTLP metrics from the real daemon (in process, cycles driven on the
// simulator's pinned clock) into a scripted OTLP receiver, every body decoded
// apart from the code under test (protoc against the official .proto files;
// OTLP/JSON by hand). Checked against the simulator's truth: in delta, the
// points of each counter series sum, bucket by bucket, to the upstream's
// buckets with their exact start and end, a late revision the audit corrects
// being a point of its own; in cumulative, each point is the sum of the
// upstream's buckets since the series' start, which never moves; a receiver
// that answers 503, then 429 with Retry-After, then 200 gets every point once;
// the JSON encoding carries the same points as protobuf; and beside
// remote-write, one receiver down holds the other back in nothing, and both
// pipes end holding the same numbers at the same times.
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { DOMAIN_REQUESTS, DOMAIN_RESPONSES, DOMAIN_TRAFFIC_BYTES } from '../../src/collectors/access/metrics.js';
import { seriesKey } from '../../src/collectors/series/keys.js';
import type { StatMetric } from '../../src/simulator/stats.js';
import { decodeMetricsJson, decodeMetricsWithProtoc, flattenPoints } from '../support/otlp-metrics-decode.js';
import { startOtlpMetricsReceiver } from '../support/otlp-metrics-receiver.js';
import { labelsOf, startReceiver } from '../exporters/remote-write/support.js';
import { MIN, expectClean, lastSettled, parseExposition, pick, ACCESS_COUNTER_FAMILIES, useRigs, type Rig } from './fault-rig.js';

type Point = ReturnType<typeof flattenPoints>[number];
type Receiver = Awaited<ReturnType<typeof startOtlpMetricsReceiver>>;

const rigs = useRigs();
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** Each access counter: its OTLP name (the Prometheus name without _total and the unit), its Prometheus series' extra labels and what it measures. */
const COUNTERS: ReadonlyArray<readonly [otlp: string, prometheus: string, labels: Record<string, string>, metric: StatMetric]> = [
  ['edge_domain_requests', DOMAIN_REQUESTS.name, {}, 'requests'],
  ['edge_domain_traffic', DOMAIN_TRAFFIC_BYTES.name, { source: 'edge' }, 'bytesSent'],
  ['edge_domain_traffic', DOMAIN_TRAFFIC_BYTES.name, { source: 'origin' }, 'upstreamBytesSent'],
  ...(['2xx', '4xx', '5xx'] as const).map((c) => ['edge_domain_responses', DOMAIN_RESPONSES.name, { code_class: c }, `status${c}` as StatMetric] as const),
];

async function receiver(): Promise<Receiver> {
  const r = await startOtlpMetricsReceiver();
  receivers.push(r);
  return r;
}

function otlpMetricsSection(url: string, temporality: 'delta' | 'cumulative', protocol: 'http/protobuf' | 'http/json', compression = 'none'): string {
  // Small requests (several per cycle) and quick retries; the snapshot of the exporter's own families every second.
  return `otlp_metrics: { enabled: true, endpoint: "${url}", temporality: ${temporality}, protocol: ${protocol}, compression: ${compression}, ` +
    'max_points_per_send: 40, batch_send_deadline: 0s, min_backoff: 10ms, max_backoff: 100ms, interval: 1s }';
}

/** Every point the receiver confirmed, decoded apart from the daemon: protoc for protobuf, by hand for JSON. */
async function delivered(r: Receiver): Promise<Point[]> {
  const out: Point[] = [];
  for (const post of r.delivered()) {
    const request = post.encoding === 'json' ? decodeMetricsJson(post.body) : await decodeMetricsWithProtoc(post.body);
    out.push(...flattenPoints(request));
  }
  return out;
}

/** The points of one access counter series of one domain. */
function seriesPoints(points: readonly Point[], otlp: string, domain: string, labels: Record<string, string>): Point[] {
  const want = { domain, ...labels };
  return points.filter((p) => p.metric === otlp && Object.keys(want).length === Object.keys(p.attributes).length &&
    Object.entries(want).every(([k, v]) => p.attributes[k] === v));
}

/** Runs `n` clean cycles a minute apart after the first. */
async function cycles(rig: Rig, n: number): Promise<void> {
  expectClean(await rig.cycle());
  for (let i = 0; i < n; i++) expectClean(await rig.cycle(MIN));
}

describe('OTLP metrics: delta', () => {
  it('each series\' points sum, bucket by bucket, to the upstream\'s buckets with their exact start and end; a revision the audit corrects is a point of its own', async () => {
    const revisedAfter = 5 * MIN;
    const r = await receiver();
    const rig = await rigs({
      domains: 3,
      readings: { lateRevision: { afterMs: revisedAfter, factor: 1.25 } },
      audit: '{ every: 1m }',
      extra: [otlpMetricsSection(r.url, 'delta', 'http/protobuf')],
    });
    await cycles(rig, 12);
    const now = rig.sim.clock.now();
    const scraped = parseExposition(await (await fetch(`${rig.url}/metrics`)).text());
    // stop flushes the sender: whatever the last cycle counted goes out.
    await rig.daemon.stop();
    const points = await delivered(r);
    const first = lastSettled(rig.firstCycleAt) + MIN;
    const last = lastSettled(now);
    let corrections = 0;
    expect(rig.sim.truth.domains()).toHaveLength(3);
    for (const domain of rig.sim.truth.domains()) {
      for (const [otlp, prometheus, labels, metric] of COUNTERS) {
        const own = seriesPoints(points, otlp, domain, labels);
        const name = `${otlp} ${domain} ${JSON.stringify(labels)}`;
        expect(own.every((p) => p.kind === 'sum' && p.temporality === 'delta' && p.monotonic === true), name).toBe(true);
        expect(own.every((p) => p.timeMs - p.startMs === MIN && p.startMs % MIN === 0 && (p.value ?? -1) >= 0), `${name}: one bucket each, never negative`).toBe(true);
        const byBucket = new Map<number, number>();
        for (const p of own) byBucket.set(p.startMs, (byBucket.get(p.startMs) ?? 0) + (p.value ?? NaN));
        corrections += own.length - byBucket.size;
        // The first point is the series' 0 over the bucket its counting starts after; then every bucket, as the upstream has it now.
        const buckets = [...byBucket.keys()].sort((a, b) => a - b);
        expect(buckets, `${name}: every bucket, no gap`).toEqual(Array.from({ length: (last - first) / MIN + 2 }, (_, i) => first - MIN + i * MIN));
        expect(byBucket.get(first - MIN), `${name}: the 0 the series starts from`).toBe(0);
        for (const bucket of buckets.slice(1)) {
          const revised = bucket + MIN <= now - revisedAfter;
          const truth = revised ? rig.sim.truth.revisedDomainTotal(domain, metric, '1m', bucket, bucket + MIN) : rig.sim.truth.domainTotal(domain, metric, bucket, bucket + MIN);
          expect(byBucket.get(bucket), `${name} ${new Date(bucket).toISOString()}`).toBeCloseTo(truth, 6);
        }
        // One meaning for both pipes: the delta points add up to what /metrics serves.
        const total = own.reduce((n, p) => n + (p.value ?? NaN), 0);
        expect(total, `${name}: the sum of the points is the /metrics counter`).toBeCloseTo(scraped[seriesKey(prometheus, { domain, ...labels })] ?? NaN, 6);
      }
    }
    // Not vacuous: the audit corrected buckets, and each correction went as a point of its own.
    expect(corrections).toBeGreaterThan(0);
  }, 60_000);
});

describe('OTLP metrics: cumulative', () => {
  /** One run of the scenario; the receiver answers `script` first. */
  async function run(protocol: 'http/protobuf' | 'http/json', script: Parameters<Receiver['script']>[0] = [], compression = 'none') {
    const r = await receiver();
    r.script(script);
    const rig = await rigs({ domains: 3, extra: [otlpMetricsSection(r.url, 'cumulative', protocol, compression)] });
    await cycles(rig, 8);
    const scraped = pick(await rig.scrape(), ACCESS_COUNTER_FAMILIES);
    await rig.daemon.stop();
    return { r, rig, scraped, points: await delivered(r) };
  }

  it('each point is the sum of the upstream\'s buckets since the series\' start, which never moves; 503, 429 with Retry-After, then 200: every point once', async () => {
    const { r, rig, scraped, points } = await run('http/protobuf', [503, { status: 429, retryAfter: '1' }]);
    // The body the 503 answered went again, byte for byte, and the 429's Retry-After was waited for.
    const posts = r.requests();
    expect(posts.slice(0, 3).map((p) => p.status)).toEqual([503, 429, 200]);
    expect(Buffer.from(posts[1]?.body ?? []).equals(Buffer.from(posts[0]?.body ?? [1]))).toBe(true);
    expect(Buffer.from(posts[2]?.body ?? []).equals(Buffer.from(posts[0]?.body ?? [1]))).toBe(true);
    expect((posts[2]?.receivedAt ?? 0) - (posts[1]?.answeredAt ?? Infinity)).toBeGreaterThanOrEqual(1000);

    const first = lastSettled(rig.firstCycleAt) + MIN;
    expect(rig.sim.truth.domains()).toHaveLength(3);
    for (const domain of rig.sim.truth.domains()) {
      for (const [otlp, prometheus, labels, metric] of COUNTERS) {
        const own = seriesPoints(points, otlp, domain, labels).sort((a, b) => a.timeMs - b.timeMs);
        const name = `${otlp} ${domain} ${JSON.stringify(labels)}`;
        expect(own.every((p) => p.kind === 'sum' && p.temporality === 'cumulative' && p.monotonic === true), name).toBe(true);
        // Every point once: one per bucket end, none twice though a request was sent three times.
        // The series' 0, then the 8 buckets the cycles counted.
        expect(own, name).toHaveLength(9);
        expect(new Set(own.map((p) => p.timeMs)).size, `${name}: no point twice`).toBe(own.length);
        expect(own.map((p) => p.timeMs), `${name}: a point at each bucket's end`).toEqual(Array.from({ length: own.length }, (_, i) => first + i * MIN));
        expect(new Set(own.map((p) => p.startMs)), `${name}: the start never moves`).toEqual(new Set([first - MIN]));
        for (const p of own) expect(p.value, `${name} at ${new Date(p.timeMs).toISOString()}`).toBe(rig.sim.truth.domainTotal(domain, metric, first, p.timeMs));
        expect(own.at(-1)?.value, `${name}: the newest point is the /metrics counter`).toBe(scraped[seriesKey(prometheus, { domain, ...labels })]);
      }
    }
    expect(points.filter((p) => p.metric === 'edge_domain_requests').length).toBeGreaterThanOrEqual(3 * 8);

    // The exporter's own families and the process' go too, as /metrics names them once Prometheus' OTLP translation adds the suffixes back.
    const names = new Set(points.map((p) => p.metric));
    expect(names).toContain('edge_exporter_build_info');
    expect(names).toContain('edge_exporter_upstream_request_duration');
    expect([...names].some((n) => n.startsWith('process_') || n.startsWith('nodejs_'))).toBe(true);
    const duration = points.find((p) => p.metric === 'edge_exporter_upstream_request_duration');
    expect(duration?.kind).toBe('histogram');
    expect(duration?.unit).toBe('s');
    expect(points.find((p) => p.metric === 'edge_domain_traffic')?.unit).toBe('By');
    // The resource: the service, a stable instance (no pid), the shard; the conventions' schema.
    const resource = points[0]?.resource ?? {};
    expect(resource).toMatchObject({
      'service.name': 'edge-exporter', 'service.version': '0.0.0-test', 'service.instance.id': hostname(),
      'edge_exporter.shard.index': '0', 'edge_exporter.shard.count': '1',
    });
  }, 60_000);

  it('the JSON encoding, and protobuf under gzip, carry the same points as protobuf', async () => {
    const counters = (points: readonly Point[]) => points
      .filter((p) => p.metric.startsWith('edge_domain_') && p.kind === 'sum')
      .map((p) => ({ series: p.series, start: p.startNs, time: p.timeNs, value: p.value, unit: p.unit, temporality: p.temporality }))
      .sort((a, b) => (a.series < b.series ? -1 : a.series > b.series ? 1 : Number(a.time - b.time)));
    const protobuf = await run('http/protobuf');
    const json = await run('http/json');
    const gzipped = await run('http/protobuf', [], 'gzip');
    expect(json.r.delivered().every((p) => p.encoding === 'json')).toBe(true);
    expect(gzipped.r.delivered().every((p) => p.contentEncoding === 'gzip' && p.rawBody.length < p.body.length)).toBe(true);
    expect(counters(json.points).length).toBeGreaterThan(0);
    expect(counters(json.points)).toEqual(counters(protobuf.points));
    expect(counters(gzipped.points)).toEqual(counters(protobuf.points));
  }, 60_000);
});

describe('OTLP metrics beside remote-write, both on', () => {
  it('one receiver down holds the other back in nothing; once both have all, each counter is the same number at the same time on both pipes', async () => {
    let rwDown = true;
    const rw = await startReceiver(() => ({ status: rwDown ? 503 : 204 }));
    try {
      const r = await receiver();
      const rig = await rigs({
        domains: 2,
        extra: [
          otlpMetricsSection(r.url, 'cumulative', 'http/protobuf'),
          `remote_write: { url: "${rw.url}", batch_send_deadline: 0s, min_backoff: 10ms, max_backoff: 50ms }`,
        ],
      });
      await cycles(rig, 4);
      // The remote-write receiver answered 503 throughout; OTLP got every bucket of the access counters meanwhile.
      const first = lastSettled(rig.firstCycleAt) + MIN;
      const ends = Array.from({ length: 4 }, (_, i) => first + i * MIN);
      await expect.poll(async () => {
        const got = (await delivered(r)).filter((p) => p.metric === 'edge_domain_requests').map((p) => p.timeMs);
        return ends.every((t) => got.includes(t));
      }, { timeout: 10_000 }).toBe(true);
      expect(rw.requests.length).toBeGreaterThan(0);
      rwDown = false;
      await rig.daemon.stop();

      // The same counter, sample for point: remote-write's samples are OTLP's cumulative points, time and value.
      const fromRw = rw.requests
        .flatMap((req) => req.series)
        .filter((s) => labelsOf(s).__name__ === 'edge_domain_requests_total')
        .flatMap((s) => s.samples.map((x) => `${labelsOf(s).domain}@${x.timestamp}=${x.value}`));
      const fromOtlp = (await delivered(r))
        .filter((p) => p.metric === 'edge_domain_requests')
        .map((p) => `${String(p.attributes.domain)}@${p.timeMs}=${p.value}`);
      expect(fromOtlp.length).toBe(2 * 5);
      // Remote-write got its pages more than once (503s before the 204): compare what each pipe holds, not how often it was sent.
      expect(new Set(fromRw)).toEqual(new Set(fromOtlp));
    } finally {
      await rw.close();
    }
  }, 60_000);
});
