import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CounterLedger } from '../../../src/counters/ledger.js';
import type { LedgerStorage } from '../../../src/counters/ledger-file.js';
import type { Sample } from '../../../src/collectors/collector.js';
import { Exposition, type SelfSource, type SnapshotSource } from '../../../src/exporters/prometheus/exposition.js';
import { FamilyStore } from '../../../src/exporters/prometheus/family-store.js';
import { SelfMetrics } from '../../../src/exporters/prometheus/self-metrics.js';
import type { ExpositionFormat, SeriesSnapshot } from '../../../src/exporters/prometheus/serialize.js';
import { def, realisticStore, sample } from './fixtures.js';

const requests = def('edge_domain_requests_total', 'counter', ['domain'], 'requests', 'Requests served.');
const noGauges = new Map<string, readonly Sample[]>();

/** A store whose snapshot() calls are counted, and a self part that is fixed text. */
function setup() {
  const store = new FamilyStore();
  store.define([requests]);
  store.publish('access', { counters: [sample(requests.name, { domain: 'a' }, 1)], gauges: noGauges });
  const counted = { snapshots: 0, selfRenders: 0 };
  const families: SnapshotSource = {
    get generation() {
      return store.generation;
    },
    snapshot: () => {
      counted.snapshots++;
      return store.snapshot();
    },
  };
  const self: SelfSource = {
    render: (format: ExpositionFormat) => {
      counted.selfRenders++;
      return Promise.resolve(format === 'openmetrics' ? '# TYPE edge_exporter_up gauge\nedge_exporter_up 1\n' : 'edge_exporter_up 1\n');
    },
  };
  return { store, counted, exposition: new Exposition({ families, self }) };
}

describe('Exposition', () => {
  it.each([
    [
      'text' as const,
      'text/plain; version=0.0.4; charset=utf-8',
      '# HELP edge_domain_requests_total Requests served.\n# TYPE edge_domain_requests_total counter\nedge_domain_requests_total{domain="a"} 1\nedge_exporter_up 1\n',
    ],
    [
      'openmetrics' as const,
      'application/openmetrics-text; version=1.0.0; charset=utf-8',
      '# TYPE edge_domain_requests counter\n# HELP edge_domain_requests Requests served.\nedge_domain_requests_total{domain="a"} 1\n# TYPE edge_exporter_up gauge\nedge_exporter_up 1\n# EOF\n',
    ],
  ])('%s: data, then self-metrics, with its content type', async (format, contentType, body) => {
    const { exposition } = setup();
    const rendered = await exposition.render(format);
    expect(rendered.contentType).toBe(contentType);
    expect(rendered.body.toString('utf8')).toBe(body);
  });

  it('renders unchanged data once per format, and the self part on every scrape', async () => {
    const { exposition, counted } = setup();
    const first = await exposition.render('text');
    const second = await exposition.render('text');
    await exposition.renderGzip('text');
    expect(second.body.equals(first.body)).toBe(true);
    expect(counted).toEqual({ snapshots: 1, selfRenders: 3 });
    await exposition.render('openmetrics');
    expect(counted.snapshots).toBe(2);
  });

  it('invalidates on publish', async () => {
    const { exposition, store, counted } = setup();
    await exposition.render('text');
    await exposition.renderGzip('text');
    store.publish('access', { counters: [sample(requests.name, { domain: 'a' }, 7)], gauges: noGauges });
    const plain = (await exposition.render('text')).body.toString('utf8');
    const gzip = gunzipSync((await exposition.renderGzip('text')).body).toString('utf8');
    expect(plain).toContain('edge_domain_requests_total{domain="a"} 7\n');
    expect(gzip).toBe(plain);
    expect(counted.snapshots).toBe(2);
  });

  it("invalidates when the ledger saves new totals, and only then: the store reads the ledger's saved counters", async () => {
    const store = new FamilyStore();
    store.define([requests]);
    const ledger = new CounterLedger();
    const storage: LedgerStorage = { load: () => Promise.resolve(undefined), save: () => Promise.resolve(), pathOf: (name) => name };
    ledger.apply('access', { increments: [sample(requests.name, { domain: 'a' }, 1)], watermarks: {} });
    await ledger.save(storage, 'access');
    store.publish('access', { counters: ledger.saved('access'), gauges: noGauges });
    const exposition = new Exposition({ families: store, self: { render: () => Promise.resolve('') } });
    const first = await exposition.render('text');
    ledger.apply('access', { increments: [sample(requests.name, { domain: 'a' }, 4)], watermarks: {} });
    expect((await exposition.render('text')).chunks[0]).toBe(first.chunks[0]); // applied, not saved: not visible
    await ledger.save(storage, 'access');
    expect((await exposition.render('text')).body.toString('utf8')).toContain('edge_domain_requests_total{domain="a"} 5\n');
    expect(gunzipSync((await exposition.renderGzip('text')).body).toString('utf8')).toContain('{domain="a"} 5\n');
  });

  it.each(['text', 'openmetrics'] as const)('%s: gzip decodes to the same bytes, as one gzip member', async (format) => {
    const { exposition } = setup();
    const plain = await exposition.render(format);
    const gzip = await exposition.renderGzip(format);
    expect(gzip.contentType).toBe(plain.contentType);
    expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
    // A second member would start with the gzip magic again after the first member's trailer.
    expect(gzip.body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(gzip.body.readUInt32LE(gzip.body.length - 4)).toBe(plain.body.length);
  });

  it('re-renders only the families whose series changed', async () => {
    const store = new FamilyStore();
    const other = def('edge_other_total', 'counter', [], 'requests');
    store.define([requests, other]);
    store.publish('access', { counters: [sample(requests.name, { domain: 'a' }, 1)], gauges: noGauges });
    store.publish('other', { counters: [sample(other.name, {}, 1)], gauges: noGauges });
    // serialize() iterates a family's series once per rendering: count that on each family's array.
    const renders = new Map<string, number>();
    const proxies = new WeakMap<object, readonly SeriesSnapshot[]>();
    const families: SnapshotSource = {
      get generation() {
        return store.generation;
      },
      snapshot: () =>
        store.snapshot().map((family) => ({
          def: family.def,
          series: counted(proxies, family.series, () => renders.set(family.def.name, (renders.get(family.def.name) ?? 0) + 1)),
        })),
    };
    const exposition = new Exposition({ families, self: { render: () => Promise.resolve('') } });
    await exposition.render('text');
    store.publish('other', { counters: [sample(other.name, {}, 2)], gauges: noGauges });
    const body = (await exposition.render('text')).body.toString('utf8');
    expect(body).toContain('edge_domain_requests_total{domain="a"} 1\n');
    expect(body).toContain('edge_other_total 2\n');
    expect(Object.fromEntries(renders)).toEqual({ [requests.name]: 1, [other.name]: 2 });
  });

  it('gzip of many families (one deflate part each) decodes to the plain body; chunks add up to it', async () => {
    const store = realisticStore(40);
    const self: SelfSource = { render: () => Promise.resolve('edge_exporter_up 1\n') };
    const exposition = new Exposition({ families: store, self });
    for (const format of ['text', 'openmetrics'] as const) {
      const plain = await exposition.render(format);
      const gzip = await exposition.renderGzip(format);
      expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
      expect(Buffer.concat(plain.chunks).equals(plain.body)).toBe(true);
      expect(plain.byteLength).toBe(plain.body.length);
      expect(gzip.byteLength).toBe(gzip.body.length);
      expect(gzip.body.length).toBeLessThan(plain.body.length / 5);
    }
  });

  it('serves one consistent generation even when a publish lands while the self part renders', async () => {
    const store = new FamilyStore();
    store.define([requests]);
    store.publish('access', { counters: [sample(requests.name, { domain: 'a' }, 1)], gauges: noGauges });
    const self: SelfSource = {
      render: () => {
        store.publish('access', { counters: [sample(requests.name, { domain: 'a' }, 2)], gauges: noGauges });
        return Promise.resolve('');
      },
    };
    const exposition = new Exposition({ families: store, self });
    expect((await exposition.render('text')).body.toString()).toContain('{domain="a"} 1\n');
    expect((await exposition.render('text')).body.toString()).toContain('{domain="a"} 2\n');
  });

  it('ends an OpenMetrics exposition with exactly one # EOF, also with the real self-metrics', async () => {
    const store = new FamilyStore();
    store.define([requests]);
    store.publish('access', { counters: [sample(requests.name, { domain: 'a' }, 1)], gauges: noGauges });
    const exposition = new Exposition({ families: store, self: new SelfMetrics({ families: store, version: '0.0.0-test' }) });
    for (const rendered of [await exposition.render('openmetrics'), { body: gunzipSync((await exposition.renderGzip('openmetrics')).body) }]) {
      const text = rendered.body.toString('utf8');
      expect(text.match(/^# EOF$/gm)).toHaveLength(1);
      expect(text.endsWith('\n# EOF\n')).toBe(true);
      expect(text).not.toContain('\n\n'); // OpenMetrics has no blank lines
    }
    expect((await exposition.render('text')).body.toString('utf8')).not.toContain('# EOF');
  });
});

/**
 * The same array behind a proxy that reports each iteration. Exposition caches
 * a family by its series array's identity, so a snapshot must hand out the
 * same proxy for the same array: `proxies` remembers them.
 */
function counted<T extends object>(proxies: WeakMap<object, readonly T[]>, items: readonly T[], onIterate: () => void): readonly T[] {
  const known = proxies.get(items);
  if (known !== undefined) return known;
  const proxy = new Proxy(items, {
    get(target, key, receiver) {
      if (key === Symbol.iterator) onIterate();
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  proxies.set(items, proxy);
  return proxy;
}
