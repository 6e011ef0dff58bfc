import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { register as globalRegistry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FamilyStore } from '../../../src/exporters/prometheus/family-store.js';
import { SELF_METRICS } from '../../../src/exporters/prometheus/self-metric-defs.js';
import { SelfMetrics } from '../../../src/exporters/prometheus/self-metrics.js';
import { def, sample } from './fixtures.js';

const requests = def('edge_domain_requests_total', 'counter', ['domain'], 'requests');

function setup() {
  const store = new FamilyStore({ maxSeriesPerFamily: 1 });
  store.define([requests]);
  // The engine's clock, which the live gauges are read against at each scrape.
  const clock = { nowMs: 0, now: (): number => clock.nowMs };
  const self = new SelfMetrics({ families: store, version: '1.2.3', processMetrics: false, clock });
  return { store, self, clock };
}

/** Sample lines of the text rendering, without comments. */
async function samples(self: SelfMetrics): Promise<string[]> {
  return (await self.render('text')).split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

describe('SelfMetrics', () => {
  it('records a successful run', async () => {
    const { self, clock } = setup();
    self.recordRun({ collector: 'access', ok: true, durationSeconds: 1.5, finishedAtMs: 1_700_000_000_500, newestBucketEndMs: 1_699_999_700_000 });
    clock.nowMs = 1_700_000_000_500;
    const lines = await samples(self);
    expect(lines).toEqual(
      expect.arrayContaining([
        'edge_exporter_collector_up{collector="access"} 1',
        'edge_exporter_collector_last_success_timestamp_seconds{collector="access"} 1700000000.5',
        'edge_exporter_collector_last_run_duration_seconds{collector="access"} 1.5',
        'edge_exporter_collector_data_lag_seconds{collector="access"} 300.5',
        'edge_exporter_collector_runs_total{collector="access",outcome="success"} 1',
        'edge_exporter_collector_runs_total{collector="access",outcome="error"} 0',
        'edge_exporter_collector_run_duration_seconds_bucket{le="2.5",collector="access"} 1',
        'edge_exporter_collector_run_duration_seconds_count{collector="access"} 1',
      ]),
    );
  });

  it('records an audit: both outcomes, and the delay it suggests, replaced by the next audit', async () => {
    const { self } = setup();
    self.onAudit('access', { match: 7, revised: 2, suggestedDelayMs: 420_000 });
    self.onAudit('access', { match: 3, revised: 0, suggestedDelayMs: 480_000 });
    const lines = await samples(self);
    expect(lines).toEqual(expect.arrayContaining([
      'edge_exporter_audit_buckets_total{collector="access",outcome="match"} 10',
      'edge_exporter_audit_buckets_total{collector="access",outcome="revised"} 2',
      'edge_exporter_suggested_delay_seconds{collector="access"} 480',
    ]));
    expect(lines.filter((l) => l.startsWith('edge_exporter_suggested_delay_seconds'))).toHaveLength(1);
  });

  it('keeps the last success when a run fails, and the lag grows from its newest bucket', async () => {
    const { self, clock } = setup();
    self.recordRun({ collector: 'usage', ok: true, durationSeconds: 1, finishedAtMs: 1_000_000, newestBucketEndMs: 940_000 });
    self.recordRun({ collector: 'usage', ok: false, durationSeconds: 9, finishedAtMs: 2_000_000 });
    clock.nowMs = 2_000_000;
    const lines = await samples(self);
    expect(lines).toEqual(
      expect.arrayContaining([
        'edge_exporter_collector_up{collector="usage"} 0',
        'edge_exporter_collector_last_success_timestamp_seconds{collector="usage"} 1000',
        'edge_exporter_collector_data_lag_seconds{collector="usage"} 1060',
        'edge_exporter_collector_last_run_duration_seconds{collector="usage"} 9',
        'edge_exporter_collector_runs_total{collector="usage",outcome="success"} 1',
        'edge_exporter_collector_runs_total{collector="usage",outcome="error"} 1',
      ]),
    );
  });

  it("takes the engine's RunReport (cycle start + duration) as a run", async () => {
    const { self, clock } = setup();
    self.onRun({ collector: 'topn', ok: true, now: 1_000_000, durationMs: 2_500, partialErrors: 0, newestBucketEndMs: 942_500 });
    clock.nowMs = 1_002_500;
    expect(await samples(self)).toEqual(
      expect.arrayContaining([
        'edge_exporter_collector_last_success_timestamp_seconds{collector="topn"} 1002.5',
        'edge_exporter_collector_last_run_duration_seconds{collector="topn"} 2.5',
        'edge_exporter_collector_data_lag_seconds{collector="topn"} 60',
      ]),
    );
  });

  it("reports each target's data age, growing over runs in which the target saw nothing new", async () => {
    const { self, clock } = setup();
    const ends = (quiet: number, busy: number) => new Map([['quiet.example', quiet], ['busy.example', busy]]);
    self.onRun({ collector: 'access', ok: true, now: 1_000_000, durationMs: 0, partialErrors: 0, targetNewestBucketEndMs: ends(940_000, 940_000) });
    clock.nowMs = 1_000_000;
    expect(await samples(self)).toEqual(expect.arrayContaining([
      'edge_exporter_target_data_age_seconds{collector="access",target="quiet.example"} 60',
      'edge_exporter_target_data_age_seconds{collector="access",target="busy.example"} 60',
    ]));
    // Ten minutes on: the quiet target's newest end has not moved, the busy one's has.
    self.onRun({ collector: 'access', ok: true, now: 1_600_000, durationMs: 0, partialErrors: 0, targetNewestBucketEndMs: ends(940_000, 1_540_000) });
    clock.nowMs = 1_600_000;
    expect(await samples(self)).toEqual(expect.arrayContaining([
      'edge_exporter_target_data_age_seconds{collector="access",target="quiet.example"} 660',
      'edge_exporter_target_data_age_seconds{collector="access",target="busy.example"} 60',
    ]));
    // A failed run moves no moment: both ages grow by the minute elapsed.
    self.onRun({ collector: 'access', ok: false, now: 1_660_000, durationMs: 0, partialErrors: 0 });
    clock.nowMs = 1_660_000;
    const lines = await samples(self);
    expect(lines).toEqual(expect.arrayContaining([
      'edge_exporter_target_data_age_seconds{collector="access",target="quiet.example"} 720',
      'edge_exporter_target_data_age_seconds{collector="access",target="busy.example"} 120',
    ]));
    expect(lines.filter((l) => l.startsWith('edge_exporter_target_data_age_seconds'))).toHaveLength(2);
  });

  it('counts refused points by collector and reason, every reason from the first run on', async () => {
    const { self } = setup();
    self.onRun({ collector: 'usage', ok: true, now: 0, durationMs: 1, partialErrors: 0 });
    self.onRun({ collector: 'access', ok: true, now: 0, durationMs: 1, partialErrors: 0, rejected: { negative: 7, non_finite: 1 } });
    self.onRun({ collector: 'access', ok: false, now: 60_000, durationMs: 1, partialErrors: 0, rejected: { negative: 3, non_finite: 0 } });
    expect(await samples(self)).toEqual(
      expect.arrayContaining([
        'edge_exporter_points_rejected_total{collector="usage",reason="negative"} 0',
        'edge_exporter_points_rejected_total{collector="usage",reason="non_finite"} 0',
        'edge_exporter_points_rejected_total{collector="access",reason="negative"} 10',
        'edge_exporter_points_rejected_total{collector="access",reason="non_finite"} 1',
      ]),
    );
  });

  it('records upstream requests, retries and rate-limit waits by plain operation strings', async () => {
    const { self } = setup();
    self.recordUpstream({ operation: 'describeL7DataV2', outcome: 'success', durationSeconds: 0.04 });
    self.recordUpstream({ operation: 'describeL7DataV2', outcome: 'http_error', durationSeconds: 0.3 });
    self.recordRetry('describeL7DataV2');
    self.recordRateLimitWait('getPackages');
    const lines = await samples(self);
    expect(lines).toEqual(
      expect.arrayContaining([
        'edge_exporter_upstream_requests_total{operation="describeL7DataV2",outcome="success"} 1',
        'edge_exporter_upstream_requests_total{operation="describeL7DataV2",outcome="http_error"} 1',
        'edge_exporter_upstream_request_duration_seconds_bucket{le="0.05",operation="describeL7DataV2"} 1',
        'edge_exporter_upstream_request_duration_seconds_count{operation="describeL7DataV2"} 2',
        'edge_exporter_upstream_retries_total{operation="describeL7DataV2"} 1',
        'edge_exporter_upstream_rate_limit_waits_total{operation="getPackages"} 1',
      ]),
    );
  });

  it('records throttled answers by operation and the rate in force, +Inf when there is no limit', async () => {
    const { self } = setup();
    self.recordThrottled('describeL7DataV2');
    self.recordThrottled('describeL7DataV2');
    self.recordRateLimit(Number.POSITIVE_INFINITY);
    expect(await samples(self)).toEqual(expect.arrayContaining([
      'edge_exporter_upstream_throttled_total{operation="describeL7DataV2"} 2',
      'edge_exporter_upstream_rate_limit_per_second +Inf',
    ]));
    self.recordRateLimit(2.5);
    expect(await samples(self)).toContain('edge_exporter_upstream_rate_limit_per_second 2.5');
  });

  it('reads series, dropped series and rejected samples from the store when scraped', async () => {
    const { store, self } = setup();
    expect(await samples(self)).toEqual(
      expect.arrayContaining(['edge_exporter_series{family="edge_domain_requests_total"} 0', 'edge_exporter_series_dropped_total{family="edge_domain_requests_total"} 0']),
    );
    const counters = ['a', 'b', 'c'].map((domain) => sample(requests.name, { domain }, 1));
    store.publish('access', { counters: [...counters, sample('edge_nope_total', {}, 1)], gauges: new Map() });
    expect(await samples(self)).toEqual(
      expect.arrayContaining([
        'edge_exporter_series{family="edge_domain_requests_total"} 1',
        'edge_exporter_series_dropped_total{family="edge_domain_requests_total"} 2',
        'edge_exporter_samples_rejected_total{reason="unknown_family"} 1',
      ]),
    );
  });

  it('shows every change on the next scrape, in both formats, though unchanged families are rendered once', async () => {
    const { store, self } = setup();
    for (const format of ['text', 'openmetrics'] as const) {
      self.recordRetry('getPackages');
      self.recordUpstream({ operation: 'getPackages', outcome: 'success', durationSeconds: 0.2 });
      const first = await self.render(format);
      expect(await self.render(format)).toBe(first);
      self.recordRetry('getPackages');
      self.recordUpstream({ operation: 'getPackages', outcome: 'success', durationSeconds: 20 });
      store.publish('access', { counters: [sample('edge_nope_total', {}, 1)], gauges: new Map() });
      const second = await self.render(format);
      const round = format === 'text' ? 1 : 2;
      expect(second).toContain(`edge_exporter_upstream_retries_total{operation="getPackages"} ${2 * round}\n`);
      expect(second).toContain(`edge_exporter_upstream_request_duration_seconds_bucket{le="0.25",operation="getPackages"} ${round}\n`);
      expect(second).toContain(`edge_exporter_upstream_request_duration_seconds_bucket{le="+Inf",operation="getPackages"} ${2 * round}\n`);
      expect(second).toContain(`edge_exporter_samples_rejected_total{reason="unknown_family"} ${round}\n`);
    }
  });

  // The sender of each pipe calls the same names (its observer); each pipe counts under its own families.
  describe.each([
    ['remoteWrite', 'edge_exporter_remote_write', 'samples'],
    ['otlpMetrics', 'edge_exporter_otlp_metrics', 'points'],
  ] as const)('the %s recorder', (recorder, prefix, unit) => {
    it(`counts under ${prefix}_* only: sent, given up by reason, retried, pending, requests by outcome`, async () => {
      const { self } = setup();
      const pipe = self[recorder];
      pipe.samplesSent(500);
      pipe.samplesSent(250);
      pipe.samplesFailed(40, 'refused');
      pipe.samplesFailed(7, 'overflow');
      pipe.samplesRetried(500);
      pipe.pending(1_200);
      pipe.pending(300);
      pipe.requestDuration(0.04, 'success');
      pipe.requestDuration(3, 'server_error');
      const lines = await samples(self);
      expect(lines).toEqual(expect.arrayContaining([
        `${prefix}_${unit}_sent_total 750`,
        `${prefix}_${unit}_failed_total{reason="refused"} 40`,
        `${prefix}_${unit}_failed_total{reason="overflow"} 7`,
        `${prefix}_${unit}_retried_total 500`,
        `${prefix}_${unit}_pending 300`,
        `${prefix}_request_duration_seconds_bucket{le="0.05",outcome="success"} 1`,
        `${prefix}_request_duration_seconds_bucket{le="2.5",outcome="server_error"} 0`,
        `${prefix}_request_duration_seconds_bucket{le="5",outcome="server_error"} 1`,
        `${prefix}_request_duration_seconds_count{outcome="server_error"} 1`,
      ]));
      // The other pipe's families keep only the series every label-less family has from the start, at 0.
      const other = prefix === 'edge_exporter_remote_write' ? 'edge_exporter_otlp_metrics' : 'edge_exporter_remote_write';
      expect(lines.filter((l) => l.startsWith(other) && !/^\w+ 0$/.test(l))).toEqual([]);
    });
  });

  it('gives both pipes the same recorder calls (one sender calls them for either) and twin families: types, labels, buckets', () => {
    const { self } = setup();
    expect(Object.keys(self.otlpMetrics).sort()).toEqual(Object.keys(self.remoteWrite).sort());
    const twins = [
      ['remoteWriteSamplesSent', 'otlpMetricsPointsSent'],
      ['remoteWriteSamplesFailed', 'otlpMetricsPointsFailed'],
      ['remoteWriteSamplesRetried', 'otlpMetricsPointsRetried'],
      ['remoteWriteSamplesPending', 'otlpMetricsPointsPending'],
      ['remoteWriteRequests', 'otlpMetricsRequests'],
      ['remoteWriteLag', 'otlpMetricsLag'],
    ] as const;
    const shape = ({ name: _name, help: _help, unit, ...rest }: { name: string; help: string; unit: string }) => ({ ...rest, unit: unit === 'points' ? 'samples' : unit });
    for (const [rw, otlp] of twins) expect(shape(SELF_METRICS[otlp]), otlp).toEqual(shape(SELF_METRICS[rw]));
    const pipe = (prefix: string) => Object.keys(SELF_METRICS).filter((key) => key.startsWith(prefix)).sort();
    expect(pipe('otlpMetrics')).toEqual(twins.map(([, otlp]) => otlp).sort());
    expect(pipe('remoteWrite')).toEqual(twins.map(([rw]) => rw).sort());
  });

  it('exposes build info', async () => {
    const { self } = setup();
    expect(await samples(self)).toContain(`edge_exporter_build_info{version="1.2.3",node_version="${process.version}"} 1`);
  });

  it('renders OpenMetrics without # EOF, and the text format keeps _total after an OpenMetrics scrape', async () => {
    const { self } = setup();
    self.recordRetry('getPackages');
    const open = await self.render('openmetrics');
    expect(open).toContain('# TYPE edge_exporter_upstream_retries counter\n');
    expect(open).toContain('edge_exporter_upstream_retries_total{operation="getPackages"} 1\n');
    expect(open).not.toContain('# EOF');
    const text = await self.render('text');
    expect(text).toContain('# TYPE edge_exporter_upstream_retries_total counter\n');
    expect(text).toContain('edge_exporter_upstream_retries_total{operation="getPackages"} 1\n');
  });

  it('renders every SELF_METRICS constant, even without series, and nothing into the global registry', async () => {
    const { self } = setup();
    const text = await self.render('text');
    for (const m of Object.values(SELF_METRICS)) expect(text).toContain(`# TYPE ${m.name} ${m.type}\n`);
    expect(await globalRegistry.metrics()).not.toContain('edge_exporter_');
  });

  it('adds process metrics, without the _total-named gauges promtool rejects', async () => {
    const store = new FamilyStore();
    const text = await new SelfMetrics({ families: store, version: '1' }).render('text');
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');
    expect(text).toContain('# TYPE nodejs_heap_size_used_bytes gauge');
    expect(text).not.toContain('nodejs_active_handles_total');
  });

  it("a stopped instance and the store it reads are collected, with or without close(): prom-client's GC observer reaches only the process metrics", async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const kept: FamilyStore[] = [];
    /** A store read only by a SelfMetrics with process metrics, dropped after one render (and close() when asked; `keep` holds on to it). */
    const abandon = async (close: boolean, keep = false): Promise<WeakRef<FamilyStore>> => {
      const store = new FamilyStore();
      const self = new SelfMetrics({ families: store, version: '1' });
      await self.render('text');
      if (close) self.close();
      if (keep) kept.push(store);
      return new WeakRef(store);
    };
    const collected = async (ref: WeakRef<FamilyStore>): Promise<boolean> => {
      // A WeakRef's target survives the job that created it; collect after it.
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      return ref.deref() === undefined;
    };
    // The check sees a store that is still reachable (so the two below are not vacuous).
    expect(await collected(await abandon(false, true))).toBe(false);
    // The store is no longer behind prom-client's registry, which the GC observer keeps for good.
    expect(await collected(await abandon(false))).toBe(true);
    expect(await collected(await abandon(true))).toBe(true);
    expect(kept).toHaveLength(1);
  });

  it('close() empties the process metrics (the registry the GC observer keeps)', async () => {
    const self = new SelfMetrics({ families: new FamilyStore(), version: '1' });
    expect(await self.render('text')).toContain('process_cpu_seconds_total');
    self.close();
    const text = await self.render('text');
    expect(text).not.toContain('process_cpu_seconds_total');
    expect(text).toContain('edge_exporter_build_info');
  });
});

describe('live gauges (…_lag_seconds, …_age_seconds): computed at each scrape from the moment they measure from', () => {
  /** Each live gauge, the event that sets its moment to `momentMs`, and the failure after which the moment stops. */
  const LIVE: Record<string, { set(self: SelfMetrics, momentMs: number): void; fail(self: SelfMetrics): void }> = {
    'edge_exporter_collector_data_lag_seconds{collector="access"}': {
      set: (self, momentMs) => self.onRun({ collector: 'access', ok: true, now: momentMs + 60_000, durationMs: 0, partialErrors: 0, newestBucketEndMs: momentMs }),
      fail: (self) => self.onRun({ collector: 'access', ok: false, now: T0 + 120_000, durationMs: 5_000, partialErrors: 0 }),
    },
    'edge_exporter_target_data_age_seconds{collector="access",target="a.example"}': {
      set: (self, momentMs) => self.onRun({ collector: 'access', ok: true, now: momentMs + 60_000, durationMs: 0, partialErrors: 0, targetNewestBucketEndMs: new Map([['a.example', momentMs]]) }),
      fail: (self) => self.onRun({ collector: 'access', ok: false, now: T0 + 120_000, durationMs: 5_000, partialErrors: 0 }),
    },
    'edge_exporter_waf_checkpoint_lag_seconds': {
      set: (self, momentMs) => self.wafEvents.onCheckpoint(momentMs),
      fail: (self) => self.wafEvents.onExportFailure({ code: 'EDGE_NETWORK' }),
    },
    'edge_exporter_remote_write_lag_seconds': {
      set: (self, momentMs) => self.remoteWrite.pushed(momentMs),
      fail: (self) => self.remoteWrite.requestDuration(0.01, 'network_error'),
    },
    'edge_exporter_otlp_metrics_lag_seconds': {
      set: (self, momentMs) => self.otlpMetrics.pushed(momentMs),
      fail: (self) => self.otlpMetrics.requestDuration(0.01, 'network_error'),
    },
  };
  const T0 = 1_700_000_000_000;

  it('covers every self-metric named …_lag_seconds or …_age_seconds, each saying it is computed at scrape time', () => {
    const live = Object.values(SELF_METRICS).filter((d) => /_(lag|age)_seconds$/.test(d.name));
    expect(live.map((d) => d.name).sort()).toEqual(Object.keys(LIVE).map((key) => key.replace(/\{.*$/, '')).sort());
    for (const d of live) expect(d.help, d.name).toMatch(/^At scrape time, /);
  });

  for (const [series, { set, fail }] of Object.entries(LIVE)) {
    it(`${series}: grows by exactly the time elapsed between two scrapes while its moment stands still`, async () => {
      const { self, clock } = setup();
      const value = async (): Promise<number> => {
        const line = (await samples(self)).find((l) => l.startsWith(`${series} `));
        return Number(line?.slice(series.length + 1));
      };
      set(self, T0);
      clock.nowMs = T0 + 60_000;
      expect(await value()).toBe(60);
      fail(self);
      clock.nowMs = T0 + 60_000 + 3_600_677;
      expect(await value()).toBe(3_660.677);
      fail(self);
      clock.nowMs += 90_500;
      expect(await value()).toBe(3_751.177);
      // The moment moving on brings it back down.
      set(self, T0 + 3_700_000);
      expect(await value()).toBe((clock.nowMs - T0 - 3_700_000) / 1000);
    });
  }
});

describe('SelfMetrics.readings (the status page\'s lags and mismatches)', () => {
  it('gives what a scrape at the same moment exposes', async () => {
    const { self, clock } = setup();
    const before = self.readings();
    expect([before.wafCheckpointLagSeconds, before.remoteWriteLagSeconds, before.otlpMetricsLagSeconds, before.dataLagSeconds.size]).toEqual([undefined, undefined, undefined, 0]);
    self.recordRun({ collector: 'access', ok: true, durationSeconds: 1, finishedAtMs: 1_000_000, newestBucketEndMs: 700_000 });
    self.wafEvents.onCheckpoint(880_000);
    self.remoteWrite.pushed(640_000);
    // A later push of older points keeps the newest.
    self.otlpMetrics.pushed(520_000);
    self.otlpMetrics.pushed(460_000);
    self.onMismatch('totals', 2);
    clock.nowMs = 1_000_677;
    const readings = self.readings();
    const lines = await samples(self);
    expect(lines).toEqual(expect.arrayContaining([
      `edge_exporter_collector_data_lag_seconds{collector="access"} ${readings.dataLagSeconds.get('access')}`,
      `edge_exporter_waf_checkpoint_lag_seconds ${readings.wafCheckpointLagSeconds}`,
      `edge_exporter_remote_write_lag_seconds ${readings.remoteWriteLagSeconds}`,
      `edge_exporter_otlp_metrics_lag_seconds ${readings.otlpMetricsLagSeconds}`,
      `edge_exporter_contract_mismatches_total{check="totals"} ${readings.contractMismatches.get('totals')}`,
    ]));
    expect([readings.dataLagSeconds.get('access'), readings.wafCheckpointLagSeconds, readings.remoteWriteLagSeconds, readings.otlpMetricsLagSeconds]).toEqual([300.677, 120.677, 360.677, 480.677]);
    expect(readings.contractMismatches.get('totals')).toBe(2);
    expect(readings.contractMismatches.get('bucket_width')).toBe(0);
    // Still growing a minute on, with nothing recorded in between.
    clock.nowMs += 60_000;
    expect(self.readings().wafCheckpointLagSeconds).toBeCloseTo(180.677, 6);
  });

  it('gives the WAF forwarder\'s counters as a scrape exposes them, failures summed over their codes', async () => {
    const { self } = setup();
    expect(self.readings().wafEvents).toEqual({ read: 0, deduplicated: 0, forwarded: 0, summarized: 0, exportFailures: 0 });
    self.wafEvents.onRead(700);
    self.wafEvents.onDeduplicated(100);
    self.wafEvents.onForwarded(512);
    self.wafEvents.onForwarded(38);
    self.wafEvents.onSummarized(50);
    self.wafEvents.onExportFailure({ code: 'EDGE_DELIVERY' });
    self.wafEvents.onExportFailure({ code: 'EDGE_DELIVERY' });
    self.wafEvents.onExportFailure({ code: 'EDGE_OTLP_ACK_TIMEOUT' });
    const { wafEvents } = self.readings();
    expect(wafEvents).toEqual({ read: 700, deduplicated: 100, forwarded: 550, summarized: 50, exportFailures: 3 });
    const lines = await samples(self);
    expect(lines).toEqual(expect.arrayContaining([
      `edge_exporter_waf_events_read_total ${wafEvents.read}`,
      `edge_exporter_waf_events_deduplicated_total ${wafEvents.deduplicated}`,
      `edge_exporter_waf_events_forwarded_total ${wafEvents.forwarded}`,
      `edge_exporter_waf_events_summarized_total ${wafEvents.summarized}`,
      'edge_exporter_waf_export_failures_total{code="EDGE_DELIVERY"} 2',
      'edge_exporter_waf_export_failures_total{code="EDGE_OTLP_ACK_TIMEOUT"} 1',
    ]));
  });
});
