// Found by the property tests (test/property): two finite increments whose
// sum passes Number.MAX_VALUE made a counter +Inf, which the exposition
// refuses and the state file cannot hold (JSON writes null).
import { describe, expect, it } from 'vitest';
import { CounterLedger } from '../../src/counters/ledger.js';
import { ledgerFileSchema } from '../../src/counters/ledger-file.js';
import { savedCounters, savedFile } from './ledger-saved.js';

const BYTES = 'edge_domain_traffic_bytes_total';
const labels = { domain: 'a.com', source: 'edge' };

describe('CounterLedger.apply near the largest double', () => {
  it('refuses an increment that would take the total to +Inf and keeps the total as it was', async () => {
    const ledger = new CounterLedger();
    expect(ledger.apply('access', { increments: [{ name: BYTES, labels, value: 1.5e308 }], watermarks: { k: 1000 } })).toEqual({ rejected: 0 });
    expect(ledger.apply('access', { increments: [{ name: BYTES, labels, value: 1e308 }], watermarks: { k: 2000 } })).toEqual({ rejected: 1 });
    expect(await savedCounters(ledger, 'access')).toEqual([{ name: BYTES, labels, value: 1.5e308 }]);
    // The watermark still moves: the absurd bucket is given up, not asked again forever.
    expect(ledger.watermarks('access')).toEqual({ k: 2000 });
  });

  it('keeps a state file that loads back', async () => {
    const ledger = new CounterLedger();
    ledger.apply('access', { increments: [{ name: BYTES, labels, value: Number.MAX_VALUE }], watermarks: {} });
    ledger.apply('access', { increments: [{ name: BYTES, labels, value: Number.MAX_VALUE }], watermarks: {} });
    const saved = JSON.parse(JSON.stringify(await savedFile(ledger, 'access'))) as unknown;
    expect(ledgerFileSchema.safeParse(saved).success).toBe(true);
  });
});
