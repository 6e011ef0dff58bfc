// CounterLedger.forget: the series of a forgotten target leave the saved counters (what
// /metrics reads) at once and the state file at the next save, watermarks
// included; other targets, other collectors and look-alike label values stay.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CounterLedger } from '../../src/counters/ledger.js';
import { seriesKey } from '../../src/collectors/series/keys.js';
import { StateStore } from '../../src/state/store.js';
import { savedCounters } from './ledger-saved.js';

const REQS = 'edge_domain_requests_total';
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function filled(): CounterLedger {
  const ledger = new CounterLedger();
  const names = ['a.com', 'b.com', 'a.com,x', 'a.com"', 'x'];
  for (const collector of ['access', 'cc-attack']) {
    ledger.apply(collector, {
      increments: names.map((domain) => ({ name: REQS, labels: { domain, source: 'edge' }, value: 5 })),
      watermarks: Object.fromEntries(names.map((domain) => [seriesKey(REQS, { domain, source: 'edge' }), 1000])),
    });
  }
  return ledger;
}

describe('CounterLedger.forget', () => {
  it('drops exactly the series and watermarks of the named targets, from the saved counters at once and the file at the next save', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edge-ledger-forget-'));
    dirs.push(dir);
    const store = new StateStore(dir);
    await store.init();
    const ledger = filled();
    await ledger.save(store, 'access');
    const saved = ledger.saved('access');
    const version = saved.version;
    expect(ledger.targets('access', 'domain')).toEqual(new Set(['a.com', 'b.com', 'a.com,x', 'a.com"', 'x']));

    ledger.forget('access', 'domain', new Set(['a.com', 'x']));
    const left = ['b.com', 'a.com,x', 'a.com"'];
    expect(saved.version).toBeGreaterThan(version);
    expect([...saved].map((s) => s.labels['domain']).sort()).toEqual([...left].sort());
    expect(Object.keys(ledger.watermarks('access')).sort()).toEqual(left.map((domain) => seriesKey(REQS, { domain, source: 'edge' })).sort());
    expect(ledger.targets('access', 'domain')).toEqual(new Set(left));
    // Another collector's book is its own.
    expect(ledger.targets('cc-attack', 'domain').size).toBe(5);

    await ledger.save(store, 'access');
    const file = JSON.parse(readFileSync(join(dir, 'ledger-access.json'), 'utf8')) as { data: { counters: { labels: { domain: string } }[]; watermarks: object } };
    expect(file.data.counters.map((c) => c.labels.domain).sort()).toEqual([...left].sort());
    expect(Object.keys(file.data.watermarks)).toHaveLength(3);
  });

  it('a forgotten target counted again starts from its first increment', async () => {
    const ledger = filled();
    ledger.forget('access', 'domain', new Set(['b.com']));
    ledger.apply('access', { increments: [{ name: REQS, labels: { domain: 'b.com', source: 'edge' }, value: 2 }], watermarks: {} });
    expect((await savedCounters(ledger, 'access')).find((s) => s.labels['domain'] === 'b.com')?.value).toBe(2);
  });

  it('forgetting nothing changes nothing', async () => {
    const ledger = filled();
    const version = ledger.saved('access').version;
    ledger.forget('access', 'domain', new Set());
    ledger.forget('access', 'domain', new Set(['nobody']));
    expect(ledger.saved('access').version).toBe(version);
    expect(await savedCounters(ledger, 'access')).toHaveLength(5);
  });
});
