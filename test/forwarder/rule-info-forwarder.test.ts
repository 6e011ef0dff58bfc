// edge_waf_rule_info from the forwarder against the simulator (real client
// over loopback, pinned clock): the simulator's own deny records are the
// ground truth for which rules are described, with what, and which are
// forgotten once the read position has moved forget_after past them; a
// restart (after whole windows, or mid-window from the journal) keeps them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_NAME } from '../../src/forwarder/checkpoint.js';
import type { LogEvent } from '../../src/forwarder/log-sink.js';
import type { Sample } from '../../src/collectors/collector.js';
import { RULES } from '../../src/simulator/waf-catalog.js';
import type { Simulator } from '../../src/simulator/index.js';
import { cursorOf, DENY, FakeSink, LastSamples, MIN, polls, S, T0, useRig } from './fakes.js';

const INFO = 'edge_waf_rule_info';

const rig = useRig();
const ORIGIN = T0 - 60 * MIN;
/** 20 polls 30 s apart, delay 2m: the cursor after the last. */
const CURSOR = T0 + 19 * 30 * S - 2 * MIN;

/** rule_id -> [description, category] of the primary rules of the simulator's deny records with time in [from, to). */
function primaryRules(sim: Simulator, from: number, to: number): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  for (const e of sim.truth.wafEvents(from, to)) {
    const rule = e.record.rules[0];
    if (e.record.response.httpCode === DENY && rule) out.set(String(rule.ruleId), [rule.ruleMessage, rule.group]);
  }
  return out;
}

const infoMap = (samples: readonly Sample[] | undefined): Map<string, [string, string]> =>
  new Map((samples ?? []).map((s) => [s.labels.rule_id ?? '', [s.labels.description ?? '', s.labels.category ?? '']]));

describe('edge_waf_rule_info from the forwarder', () => {
  it('describes every rule id of the denied counter with the message and group the deny records carry', async () => {
    const samples = new LastSamples();
    await polls(rig.forwarder(new FakeSink(50), samples), rig.sim, 20, 30 * S);
    const info = samples.gauges.get(INFO);
    const expected = primaryRules(rig.sim, ORIGIN, CURSOR);
    expect(expected.size).toBeGreaterThan(3);
    expect(infoMap(info)).toEqual(expected);
    expect(info?.every((s) => s.value === 1)).toBe(true);
    // The join the dashboards make: every rule id counted has its one description.
    expect(new Set(samples.counters.map((s) => s.labels.rule_id))).toEqual(new Set(expected.keys()));
    // The simulator's catalog says the same (its messages are the rules' own).
    for (const [id, [description, category]] of expected) {
      expect(RULES.find((r) => r.ruleId === id)).toMatchObject({ ruleMessage: description, group: category });
    }
  });

  it('forgets a rule absent from forget_after of the deny events read', async () => {
    const samples = new LastSamples();
    await polls(rig.forwarder(new FakeSink(50), samples, { forgetAfterMs: 60 * S }), rig.sim, 20, 30 * S);
    // Windows end every 30 s; kept: rules first read in the windows ending at the cursor and 30 s before it.
    const kept = primaryRules(rig.sim, CURSOR - 60 * S, CURSOR);
    const all = primaryRules(rig.sim, ORIGIN, CURSOR);
    expect(kept.size).toBeGreaterThan(0);
    expect(kept.size).toBeLessThan(all.size);
    expect(infoMap(samples.gauges.get(INFO))).toEqual(kept);
    // The counter keeps every rule's total: forgetting the description does not lose counts.
    expect(new Set(samples.counters.map((s) => s.labels.rule_id))).toEqual(new Set(all.keys()));
  });

  it('a rule forgotten stays forgotten over a restart, also when the windows since the last snapshot are journal lines', async () => {
    const before = new LastSamples();
    const first = rig.forwarder(new FakeSink(50), before, { forgetAfterMs: 60 * S });
    // Polled past forget_after, until the last window done is a journal line (a move) rather than a snapshot.
    const moved = (): boolean => /"a":\[/.test(readFileSync(join(rig.dir, `${CHECKPOINT_NAME}.journal`), 'utf8'));
    for (let i = 0; i < 40 && (i < 10 || !moved()); i++) await polls(first, rig.sim, 1, 30 * S);
    await first.stop();
    expect(moved()).toBe(true);
    const after = new LastSamples();
    const second = rig.forwarder(new FakeSink(50), after, { forgetAfterMs: 60 * S });
    await second.start();
    await second.stop();
    const cursor = cursorOf(rig.dir);
    const kept = primaryRules(rig.sim, cursor - 60 * S, cursor);
    expect(kept.size).toBeLessThan(primaryRules(rig.sim, ORIGIN, cursor).size);
    expect(infoMap(before.gauges.get(INFO))).toEqual(kept);
    expect(infoMap(after.gauges.get(INFO))).toEqual(kept);
  });

  it('keeps the descriptions over a restart: published from the checkpoint before the first poll', async () => {
    const before = new LastSamples();
    const first = rig.forwarder(new FakeSink(50), before);
    await polls(first, rig.sim, 4, 30 * S);
    await first.stop();
    const after = new LastSamples();
    const second = rig.forwarder(new FakeSink(50), after);
    await second.start();
    await second.stop();
    expect(infoMap(after.gauges.get(INFO))).toEqual(infoMap(before.gauges.get(INFO)));
    expect(infoMap(after.gauges.get(INFO)).size).toBeGreaterThan(3);
  });

  it('keeps the rules of batches confirmed mid-window (journal lines) over a restart', async () => {
    const sink = new FakeSink(5);
    let stuck: () => void = () => undefined;
    const third = new Promise<void>((resolve) => (stuck = resolve));
    // Three batches confirmed, then the receiver is down: the window never finishes, so only the journal holds them.
    sink.onAttempt = () => {
      if (sink.attempts === 4) {
        sink.failures = Number.POSITIVE_INFINITY;
        stuck();
      }
    };
    const first = rig.forwarder(sink, new LastSamples(), { retry: { minDelayMs: 5, maxDelayMs: 5 } });
    await first.start();
    await third;
    await first.stop();
    expect(readFileSync(join(rig.dir, `${CHECKPOINT_NAME}.journal`), 'utf8')).toMatch(/"r":\[\["/);
    const after = new LastSamples();
    const second = rig.forwarder(new FakeSink(50), after);
    await second.start();
    await second.stop();
    const attr = (e: LogEvent, name: string): string => String(e.attributes[name] ?? '');
    const confirmed = new Map(sink.events().map((e): [string, [string, string]] =>
      [attr(e, 'security_rule.uuid'), [attr(e, 'security_rule.description'), attr(e, 'security_rule.category')]]));
    expect(sink.batches).toHaveLength(3);
    expect(infoMap(after.gauges.get(INFO))).toEqual(confirmed);
  });
});
