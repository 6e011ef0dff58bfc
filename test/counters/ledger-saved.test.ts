// The ledger is the one holder of counter totals: its saved counters show what is on
// disk, and increments a failed save could not write stay pending until a
// save carries them.
import { describe, expect, it } from 'vitest';
import { CounterLedger } from '../../src/counters/ledger.js';
import type { LedgerStorage } from '../../src/counters/ledger-file.js';
import type { Sample } from '../../src/collectors/collector.js';

const REQS = 'edge_domain_requests_total';
const inc = (domain: string, value: number): Sample => ({ name: REQS, labels: { domain }, value });

/** A state store in memory whose next save can be made to fail, or to wait. */
function storage() {
  const files = new Map<string, unknown>();
  const control = { fail: false, gate: undefined as Promise<void> | undefined };
  const store: LedgerStorage = {
    load: () => Promise.resolve(undefined),
    pathOf: (name) => `/state/${name}.json`,
    save: async (name, data) => {
      await control.gate;
      if (control.fail) throw new Error('disk full');
      files.set(name, data);
    },
  };
  return { store, files, control };
}

describe('CounterLedger.saved', () => {
  it('shows only saved totals, and moves its version when a save changes them', async () => {
    const ledger = new CounterLedger();
    const { store } = storage();
    const saved = ledger.saved('access');
    ledger.apply('access', { increments: [inc('a', 5)], watermarks: {} });
    expect([...saved]).toEqual([]);
    expect(saved.size).toBe(0);
    const before = saved.version;
    await ledger.save(store, 'access');
    expect([...saved]).toEqual([inc('a', 5)]);
    expect(saved.size).toBe(1);
    expect(saved.version).toBeGreaterThan(before);
    const afterSave = saved.version;
    await ledger.save(store, 'access');
    expect(saved.version).toBe(afterSave); // nothing new: a cached rendering stays valid
    expect(ledger.saved('access')).toBe(saved);
  });

  it('keeps increments pending after a failed save; the next save carries them', async () => {
    const ledger = new CounterLedger();
    const { store, files, control } = storage();
    const saved = ledger.saved('access');
    ledger.apply('access', { increments: [inc('a', 5)], watermarks: { a: 1 } });
    await ledger.save(store, 'access');
    ledger.apply('access', { increments: [inc('a', 2)], watermarks: { a: 2 } });
    control.fail = true;
    await expect(ledger.save(store, 'access')).rejects.toThrow('disk full');
    expect([...saved]).toEqual([inc('a', 5)]);
    ledger.apply('access', { increments: [inc('a', 1)], watermarks: { a: 3 } });
    control.fail = false;
    await ledger.save(store, 'access');
    expect([...saved]).toEqual([inc('a', 8)]);
    expect(files.get('ledger-access')).toMatchObject({ watermarks: { a: 3 }, counters: [{ name: REQS, labels: { domain: 'a' }, value: 8 }] });
  });

  it('does not show increments applied while a save was writing: they were not in the file', async () => {
    const ledger = new CounterLedger();
    const { store, files, control } = storage();
    let open = (): void => undefined;
    control.gate = new Promise((resolve) => (open = resolve));
    ledger.apply('access', { increments: [inc('a', 5)], watermarks: {} });
    const saving = ledger.save(store, 'access');
    ledger.apply('access', { increments: [inc('a', 1), inc('b', 1)], watermarks: {} });
    open();
    await saving;
    expect([...ledger.saved('access')]).toEqual([inc('a', 5)]);
    expect(files.get('ledger-access')).toMatchObject({ counters: [{ value: 5 }] });
    control.gate = undefined;
    await ledger.save(store, 'access');
    expect([...ledger.saved('access')]).toEqual([inc('a', 6), inc('b', 1)]);
  });

  it('shows a restored file as saved', () => {
    const ledger = new CounterLedger();
    const saved = ledger.saved('access');
    const before = saved.version;
    ledger.restore('access', { collector: 'access', watermarks: {}, counters: [{ name: REQS, labels: { domain: 'a' }, value: 40 }] });
    expect([...saved]).toEqual([inc('a', 40)]);
    expect(saved.version).toBeGreaterThan(before);
  });
});
