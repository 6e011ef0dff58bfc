// The engine with a real state directory: counters continue across restarts,
// and a damaged state file stops start-up instead of resetting counters.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CollectContext } from '../../src/collectors/collector.js';
import { StateError, StateStore } from '../../src/state/store.js';
import { COUNTER, MIN, T0, every, fakeCollector, idleClient, output, rig, type PollerRig } from './fakes.js';

const client = idleClient();
afterAll(() => client.close());

let dir: string;
let rigs: PollerRig[] = [];
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
  dir = mkdtempSync(join(tmpdir(), 'edge-poller-'));
});
afterEach(async () => {
  await Promise.all(rigs.map((r) => r.engine.stop()));
  rigs = [];
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

/** Counts one bucket per minute since its watermark, like a real collector: 10 requests per bucket. */
function bucketCounter(name: string) {
  return fakeCollector(name, async (ctx: CollectContext) => {
    const settled = Math.floor(ctx.now / MIN) * MIN - MIN;
    const from = ctx.watermarks.total === undefined ? settled : ctx.watermarks.total + MIN;
    const buckets = Math.max(0, (settled - from) / MIN + 1);
    return output({ increments: [{ name: COUNTER, labels: { domain: 'a.com' }, value: 10 * buckets }], watermarks: { total: settled } });
  });
}

function daemon(name = 'access'): { r: PollerRig; collector: ReturnType<typeof bucketCounter> } {
  const collector = bucketCounter(name);
  const r = rig({ client, store: new StateStore(dir), collectors: [{ collector, schedule: every(MIN) }] });
  rigs.push(r);
  return { r, collector };
}

const value = (r: PollerRig, collector = 'access') => r.sink.lastCounters(collector)?.[0]?.value;

describe('Engine: state across restarts', () => {
  it('continues every counter with no loss and no double count, whatever the restart pattern', async () => {
    // Uninterrupted: counts the bucket settled at T0 (10) plus one bucket per later minute.
    const first = daemon();
    expect((await first.r.engine.runOnce())[0]?.ok).toBe(true);
    expect(value(first.r)).toBe(10);
    vi.setSystemTime(T0 + 3 * MIN);
    await first.r.engine.runOnce();
    expect(value(first.r)).toBe(40);
    await first.r.engine.stop();

    // Down for 5 minutes; the restarted daemon publishes the persisted value before any upstream call.
    vi.setSystemTime(T0 + 8 * MIN);
    const second = daemon();
    await second.r.engine.start();
    expect(second.r.events[0]).toMatchObject({ kind: 'publish', counters: [{ value: 40 }] });
    const [report] = await second.r.engine.runOnce(); // joins the start-up run
    expect(report?.ok).toBe(true);
    expect(second.collector.calls[0]?.watermarks).toEqual({ total: T0 - 20_000 + 2 * MIN });
    expect(value(second.r)).toBe(90); // 40 + the five buckets missed while down
    await second.r.engine.stop();

    // `run --once` twice with the same state directory continues the same counters.
    vi.setSystemTime(T0 + 9 * MIN);
    const once = daemon();
    await once.r.engine.runOnce();
    expect(value(once.r)).toBe(100);
    expect(readdirSync(dir).sort()).toEqual(['ledger-access.json']);
  });

  it.each([
    ['truncated', '{"version":1,"data":{"collec'],
    ['wrong shape', JSON.stringify({ version: 1, data: { collector: 'access', watermarks: {}, counters: 'x' } })],
  ])('refuses to start on a %s state file, naming it and what to do', async (_name, content) => {
    writeFileSync(join(dir, 'ledger-access.json'), content);
    const { r, collector } = daemon();
    const err = await r.engine.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateError);
    expect(String(err)).toContain(join(dir, 'ledger-access.json'));
    expect(String(err)).toMatch(/Refusing to start rather than reset its counters silently.*remove it to start "access" from 0/);
    await vi.advanceTimersByTimeAsync(5 * MIN);
    expect(collector.calls).toHaveLength(0);
    expect(r.events).toEqual([]);
  });
});
