import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CounterLedger } from '../../src/counters/ledger.js';
import { ledgerFileName } from '../../src/counters/ledger-file.js';
import { seriesKey } from '../../src/collectors/series/keys.js';
import type { CollectOutput, Sample } from '../../src/collectors/collector.js';
import { StateError, StateStore } from '../../src/state/store.js';
import { savedCounters } from './ledger-saved.js';

type Cycle = Pick<CollectOutput, 'increments' | 'watermarks'>;

const inc = (name: string, labels: Record<string, string>, value: number, timestampMs?: number): Sample =>
  timestampMs === undefined ? { name, labels, value } : { name, labels, value, timestampMs };

const BYTES = 'edge_domain_traffic_bytes_total';
const REQS = 'edge_domain_requests_total';

/** Five cycles of a collector: new series appear, labels arrive in any order, watermarks move. */
const CYCLES: readonly Cycle[] = [
  { increments: [inc(BYTES, { domain: 'a.com', source: 'edge' }, 100)], watermarks: { 'a.com': 1000 } },
  {
    increments: [inc(BYTES, { source: 'edge', domain: 'a.com' }, 50), inc(REQS, { domain: 'a.com' }, 7)],
    watermarks: { 'a.com': 2000, 'b.com': 2000 },
  },
  { increments: [], watermarks: {} },
  { increments: [inc(REQS, { domain: 'b.com' }, 3), inc(REQS, { domain: 'a.com' }, 1)], watermarks: { 'b.com': 3000 } },
  { increments: [inc(BYTES, { domain: 'a.com', source: 'origin' }, 0.5)], watermarks: { 'a.com': 4000 } },
];

const sorted = (samples: readonly Sample[]): Sample[] =>
  [...samples].sort((a, b) => seriesKey(a.name, a.labels).localeCompare(seriesKey(b.name, b.labels)));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'edge-ledger-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('CounterLedger', () => {
  it('adds increments per series, whatever the label order, and reports absolute values', async () => {
    const ledger = new CounterLedger();
    for (const c of CYCLES) ledger.apply('access', c);
    expect(sorted(await savedCounters(ledger, 'access'))).toEqual(
      sorted([
        inc(BYTES, { domain: 'a.com', source: 'edge' }, 150),
        inc(BYTES, { domain: 'a.com', source: 'origin' }, 0.5),
        inc(REQS, { domain: 'a.com' }, 8),
        inc(REQS, { domain: 'b.com' }, 3),
      ]),
    );
    expect(ledger.watermarks('access')).toEqual({ 'a.com': 4000, 'b.com': 3000 });
  });

  it('keeps collectors apart', async () => {
    const ledger = new CounterLedger();
    ledger.apply('access', CYCLES[0] ?? { increments: [], watermarks: {} });
    expect(await savedCounters(ledger, 'usage')).toEqual([]);
    expect(ledger.watermarks('usage')).toEqual({});
  });

  it.each([
    ['negative', -1],
    ['NaN', Number.NaN],
    ['infinite', Number.POSITIVE_INFINITY],
  ])('refuses a %s increment (a counter never goes down)', async (_name, value) => {
    const ledger = new CounterLedger();
    ledger.apply('access', { increments: [inc(REQS, { domain: 'a.com' }, 5)], watermarks: {} });
    expect(ledger.apply('access', { increments: [inc(REQS, { domain: 'a.com' }, value)], watermarks: {} })).toEqual({ rejected: 1 });
    expect(await savedCounters(ledger, 'access')).toEqual([inc(REQS, { domain: 'a.com' }, 5)]);
  });

  it('keeps the newest bucket timestamp of a series for timestamps: true', async () => {
    const ledger = new CounterLedger();
    ledger.apply('access', { increments: [inc(REQS, { domain: 'a.com' }, 1, 2000), inc(REQS, { domain: 'a.com' }, 1, 1000)], watermarks: {} });
    expect(await savedCounters(ledger, 'access')).toEqual([inc(REQS, { domain: 'a.com' }, 2, 2000)]);
  });

  // A restart after every possible cycle must end where one uninterrupted run ends.
  it.each(CYCLES.map((_, i) => [i + 1]))('continues every counter after a restart after cycle %i', async (restartAfter) => {
    const uninterrupted = new CounterLedger();
    for (const c of CYCLES) uninterrupted.apply('access', c);

    const store = new StateStore(dir);
    const before = new CounterLedger();
    for (const c of CYCLES.slice(0, restartAfter)) before.apply('access', c);
    await before.save(store, 'access');

    const after = new CounterLedger();
    expect(await after.load(new StateStore(dir), 'access')).toBe(true);
    expect(after.watermarks('access')).toEqual(before.watermarks('access'));
    for (const c of CYCLES.slice(restartAfter)) after.apply('access', c);

    expect(sorted(await savedCounters(after, 'access'))).toEqual(sorted(await savedCounters(uninterrupted, 'access')));
    expect(after.watermarks('access')).toEqual(uninterrupted.watermarks('access'));
  });

  it('starts fresh without a state file', async () => {
    const ledger = new CounterLedger();
    expect(await ledger.load(new StateStore(dir), 'access')).toBe(false);
    expect(await savedCounters(ledger, 'access')).toEqual([]);
  });

  it.each([
    ['another collector', { collector: 'usage', watermarks: {}, counters: [] }, /belongs to collector "usage"/],
    ['a negative counter', { collector: 'access', watermarks: {}, counters: [{ name: REQS, labels: {}, value: -2 }] }, /data\.counters\.0\.value/],
    ['a fractional watermark', { collector: 'access', watermarks: { a: 1.5 }, counters: [] }, /data\.watermarks\.a/],
  ])('refuses a state file of %s', async (_name, data, problem) => {
    writeFileSync(join(dir, `${ledgerFileName('access')}.json`), JSON.stringify({ version: 1, data }));
    const err = await new CounterLedger().load(new StateStore(dir), 'access').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateError);
    expect(String(err)).toMatch(problem);
    expect(String(err)).toContain(join(dir, 'ledger-access.json'));
  });
});
