// A change of otlp_metrics.temporality (a reload, a restart) with points still
// waiting: each page keeps the temporality its points were made in, through
// the ledger file, and goes out as what it is: cumulative totals are never
// sent labelled as deltas (which a delta backend would add up).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { HistoryQueues, otlpMetricsPipe } from '../../../src/counters/history/index.js';
import { CounterLedger } from '../../../src/counters/ledger.js';
import { seriesKey } from '../../../src/collectors/series/keys.js';
import type { Temporality } from '../../../src/counters/index.js';
import { otlpMetricsProtocol } from '../../../src/exporters/otlp-metrics/protocol.js';
import { StateStore } from '../../../src/state/store.js';
import { decodeMetricsWithProtoc, flattenPoints } from '../../support/otlp-metrics-decode.js';

const MIN = 60_000;
const T = Date.UTC(2026, 2, 2, 4, 0);
const REQ = 'edge_domain_requests_total';
const KEY = seriesKey(REQ, { domain: 'a.com' });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'edge-otlp-temporality-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function open(temporality: Temporality) {
  const history = new HistoryQueues({ pipe: otlpMetricsPipe(temporality), store: new StateStore(dir), pageSize: 100, maxPendingSamples: 1_000_000 });
  return { history, ledger: new CounterLedger([history]) };
}

/** One cycle counting `value` in the bucket at minute `m`. */
function count(ledger: CounterLedger, m: number, value: number): void {
  const counted = [new Map([[KEY, { values: [[T + m * MIN, value]] as const }]])];
  ledger.apply('access', { increments: [{ name: REQ, labels: { domain: 'a.com' }, value }], watermarks: { [KEY]: T + m * MIN } }, { gauges: new Map(), now: T + (m + 4) * MIN, counted, bucketMs: MIN });
}

it('pages made cumulative go out cumulative after a restart in delta, and the new ones delta', async () => {
  const before = open('cumulative');
  await before.ledger.load(new StateStore(dir), 'access');
  count(before.ledger, 0, 10);
  count(before.ledger, 1, 5);
  await before.ledger.save(new StateStore(dir), 'access');

  // Restarted in delta: the pending pages come back from the file with their temporality.
  const after = open('delta');
  await after.ledger.load(new StateStore(dir), 'access');
  count(after.ledger, 2, 7);
  await after.ledger.save(new StateStore(dir), 'access');
  const pages = after.history.heads();
  expect(pages.map((p) => p.tag)).toEqual(['cumulative']);

  // Everything pending, oldest first, in one request of the pipe as configured now (delta).
  const all = [];
  for (let page = after.history.heads()[0]; page !== undefined; page = after.history.heads()[0]) {
    // Read before it leaves its queue (and its series the queue's table), as the sender does.
    expect(page.samples.length).toBeGreaterThan(0);
    all.push(page);
    await after.history.settle([page]);
  }
  const protocol = otlpMetricsProtocol('http/protobuf', {
    resource: resourceFromAttributes({ 'service.name': 'edge-exporter' }), scope: { name: 'edge-exporter', version: '0', schemaUrl: '' },
    temporality: 'delta', def: () => undefined, maxLabelValueLength: 128,
  });
  const points = flattenPoints(await decodeMetricsWithProtoc(protocol.encode(all)))
    .map((p) => ({ temporality: p.temporality, start: (p.startMs - T) / MIN, end: (p.timeMs - T) / MIN, value: p.value }))
    .sort((a, b) => a.end - b.end);
  expect(points).toEqual([
    // Made cumulative: totals since the series' start (its first bucket, minute 0).
    { temporality: 'cumulative', start: 0, end: 1, value: 10 },
    { temporality: 'cumulative', start: 0, end: 2, value: 15 },
    // Made delta: the bucket's own value over the bucket.
    { temporality: 'delta', start: 2, end: 3, value: 7 },
  ]);
});
