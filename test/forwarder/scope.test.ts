// The WAF event stream split over shards: each shard forwards the events of
// its domains only, together exactly the events of one unsharded forwarder;
// a shard with no domain sends no query (domains: [] would read them all);
// one whose domains could never be listed waits with its checkpoint in place.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shardOf, type Shard } from '../../src/collectors/targets/shard.js';
import { TargetDiscovery, type TargetSource } from '../../src/collectors/targets/discovery.js';
import { domainScope } from '../../src/collectors/targets/domain-scope.js';
import { targetsSchema } from '../../src/config/sections/targets.js';
import { StateStore } from '../../src/state/store.js';
import { cursorOf, denyIds, FakeSink, LastSamples, MIN, polls, recordingLogger, T0, useRig } from './fakes.js';

const rig = useRig({ domains: 12 });
const ORIGIN = T0 - 60 * MIN;
const COUNT = 3;
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function ownDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'waf-scope-'));
  dirs.push(dir);
  return dir;
}

function discovery(shard: Shard): TargetDiscovery {
  return new TargetDiscovery({ client: rig.client, config: targetsSchema.parse({}), log: recordingLogger([]), shard });
}

/** A TargetSource that could never list the domains. */
const neverListed: TargetSource = {
  current: () => ({ domains: [], packages: [] }),
  refreshIfDue: () => Promise.resolve([]),
  unavailable: (kind) => (kind === 'domains' ? Object.assign(new Error('listDomains failed'), { code: 'EDGE_HTTP' }) : undefined),
};

describe('domainScope', () => {
  it('is absent when unsharded: the query stays as configured', () => {
    expect(domainScope({ shard: { index: 0, count: 1 }, configured: ['a.example.com'], targets: neverListed })).toBeUndefined();
  });

  it('splits a configured list by the hash, without discovery', async () => {
    const configured = Array.from({ length: 9 }, (_, i) => `w${i}.example.com`);
    const shares = await Promise.all(
      [0, 1, 2].map((index) => domainScope({ shard: { index, count: COUNT }, configured, targets: neverListed })?.domains(T0, new AbortController().signal)),
    );
    shares.forEach((share, index) => expect(share).toEqual(configured.filter((d) => shardOf(d, COUNT) === index)));
  });
});

describe('WafEventForwarder with a shard scope', () => {
  it('forwards, over three shards, exactly the events of one unsharded forwarder, each once', async () => {
    const whole = new FakeSink(50);
    await polls(rig.forwarder(whole, new LastSamples()), rig.sim, 3, 0);
    const parts: string[][] = [];
    for (let index = 0; index < COUNT; index++) {
      const shard = { index, count: COUNT };
      const sink = new FakeSink(50);
      const scope = domainScope({ shard, targets: discovery(shard) });
      await polls(rig.forwarder(sink, new LastSamples(), { scope, store: new StateStore(ownDir()) }), rig.sim, 3, 0);
      parts.push(sink.uids());
    }
    const expected = denyIds(rig.sim, ORIGIN, cursorOf(rig.dir));
    expect(expected.length).toBeGreaterThan(50);
    expect(new Set(whole.uids())).toEqual(new Set(expected));
    expect(parts.every((p) => p.length > 0)).toBe(true);
    expect(parts.flat().sort()).toEqual([...expected].sort()); // no event twice, none missing
  });

  it('sends no query for a shard that owns no domain, and still moves its checkpoint', async () => {
    const before = rig.sim.requestCounts().describeLogV2 ?? 0;
    const sink = new FakeSink(50);
    // The only configured domain belongs to shard 0, so shard 1's share is empty.
    const configured = Array.from({ length: 10 }, (_, i) => `n${i}.example.com`).filter((d) => shardOf(d, 2) === 0).slice(0, 1);
    expect(configured).toHaveLength(1);
    const scope = domainScope({ shard: { index: 1, count: 2 }, configured, targets: neverListed });
    expect(await scope?.domains(T0, new AbortController().signal)).toEqual([]);
    const report = await rig.forwarder(sink, new LastSamples(), { scope }).pollOnce();
    expect(report).toMatchObject({ ok: true, forwarded: 0, cursorMs: T0 - 2 * MIN });
    expect(rig.sim.requestCounts().describeLogV2 ?? 0).toBe(before);
    expect(cursorOf(rig.dir)).toBe(T0 - 2 * MIN);
  });

  it('waits, checkpoint in place, while its domains could never be listed', async () => {
    const sink = new FakeSink(50);
    const f = rig.forwarder(sink, new LastSamples(), { scope: domainScope({ shard: { index: 0, count: 2 }, targets: neverListed }) });
    const report = await f.pollOnce();
    expect(report).toMatchObject({ ok: false, windows: 0, forwarded: 0, error: { message: expect.stringContaining('listDomains failed') } });
    expect(cursorOf(rig.dir)).toBe(ORIGIN);
    expect(sink.attempts).toBe(0);
  });
});
