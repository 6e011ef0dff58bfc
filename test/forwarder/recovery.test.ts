// Recovery, against the simulator with a fake receiver: receiver outages
// (retried while polling waits), a checkpoint save that fails, a crash
// between a confirmed batch and its checkpoint (the re-send bound, measured),
// and a damaged checkpoint at start-up.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sample, SampleSink } from '../../src/collectors/collector.js';
import { CHECKPOINT_NAME } from '../../src/forwarder/checkpoint.js';
import { nodeStateFs, type StateFs } from '../../src/state/store.js';
import { counterMap, cursorOf, savedCheckpoint, denyIds, expectedCounters, FakeSink, LastSamples, MIN, polls, S, T0, useRig } from './fakes.js';

const rig = useRig();
const ORIGIN = T0 - 60 * MIN;

/**
 * The state directory's fs, with the fourth save failing as a full disk
 * would. A save is a snapshot put in place (rename) or a batch appended to
 * the journal; a failed append leaves half its line behind.
 */
function fourthSaveFails(): StateFs {
  let saves = 0;
  return {
    ...nodeStateFs,
    async rename(from, to) {
      saves++;
      if (saves === 4) throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
      await nodeStateFs.rename(from, to);
    },
    async appendSynced(path, data) {
      saves++;
      if (saves === 4) {
        await nodeStateFs.appendSynced(path, data.slice(0, Math.floor(data.length / 2)));
        throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
      }
      await nodeStateFs.appendSynced(path, data);
    },
  };
}

describe('WafEventForwarder when the state directory fails', () => {
  it('a checkpoint save that fails stops sending until a save succeeds; nothing is sent twice', async () => {
    const sink = new FakeSink(8);
    const flaky = fourthSaveFails();
    const f = rig.forwarder(sink, new LastSamples(), {}, { fs: flaky });
    const failed = await f.pollOnce();
    expect(failed).toMatchObject({ ok: false, error: { code: 'EDGE_STATE' } });
    const sentBeforeRetry = sink.attempts;
    rig.sim.clock.advance(30 * S);
    await polls(f, rig.sim, 3, 30 * S);
    expect(sink.attempts).toBeGreaterThan(sentBeforeRetry);
    const uids = sink.uids();
    expect(uids.length).toBe(new Set(uids).size);
    expect(new Set(uids)).toEqual(new Set(denyIds(rig.sim, ORIGIN, cursorOf(rig.dir))));
  });

  it('while a save fails the denied counter shows what is on disk, not what was confirmed since; the next save shows the rest', async () => {
    const sink = new FakeSink(8);
    const flaky = fourthSaveFails();
    // Keeps what was published and reads it when asked, as the FamilyStore does.
    let published: Iterable<Sample> = [];
    const live: SampleSink = { publish: (_collector, update) => void (published = update.counters) };
    const total = (): number => [...published].reduce((sum, s) => sum + s.value, 0);
    const onDisk = (): number => savedCheckpoint(rig.dir).counters.reduce((sum, c) => sum + c.value, 0);
    const f = rig.forwarder(sink, live, {}, { fs: flaky });
    expect(await f.pollOnce()).toMatchObject({ ok: false });
    const confirmed = f.stats().forwarded;
    expect(confirmed).toBeGreaterThan(onDisk());
    expect(total()).toBe(onDisk());
    rig.sim.clock.advance(30 * S);
    await polls(f, rig.sim, 1, 30 * S);
    expect(total()).toBe(onDisk());
    expect(total()).toBe(f.stats().forwarded);
  });
});

describe('WafEventForwarder when the receiver fails', () => {
  it.each<[string, (sink: FakeSink) => void]>([
    ['DeliveryError naming the whole batch', () => undefined],
    ['a network error', (sink) => {
      sink.failure = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4318'), { code: 'ECONNREFUSED' });
    }],
  ])('%s: retried while polling waits; nothing lost, nothing doubled', async (_name, configure) => {
    const sink = new FakeSink(8);
    configure(sink);
    sink.failures = 6;
    const upstreamCalls: number[] = [];
    sink.onAttempt = () => upstreamCalls.push(rig.sim.requestCounts().describeLogV2 ?? 0);
    const f = rig.forwarder(sink, new LastSamples());
    await polls(f, rig.sim, 6, 30 * S);
    // The 6 failed attempts and the one that succeeded are the same batch: no page was read in between.
    expect(new Set(upstreamCalls.slice(0, 7)).size).toBe(1);
    expect(f.stats().exportFailures).toBe(6);
    // One failure spell: one warning at its first failure, the 5 repeats at debug, one line when the receiver confirms.
    expect(rig.logs.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([expect.stringMatching(/^delivering WAF events failed; retrying/)]);
    expect(rig.logs.filter((l) => l.level === 'debug' && l.msg?.startsWith('delivering WAF events failed again'))).toHaveLength(5);
    const recovered = rig.logs.filter((l) => l.fields['retries'] !== undefined);
    expect(recovered.map((l) => [l.level, l.fields['retries'], typeof l.fields['durationSeconds']])).toEqual([['info', 6, 'number']]);
    expect(recovered[0]?.msg).toMatch(/^the OTLP receiver confirmed WAF events again after 6 retries over [\d.]+s$/);
    const uids = sink.uids();
    expect(uids.length).toBe(new Set(uids).size);
    expect(new Set(uids)).toEqual(new Set(denyIds(rig.sim, ORIGIN, cursorOf(rig.dir))));
  });
});

describe('WafEventForwarder after a crash between a confirmed batch and its checkpoint', () => {
  const MAX_BATCH = 8;
  // Save 1 is the first start's checkpoint; later saves follow batches (a journal line) and windows (a snapshot).
  // A crash in an append leaves a torn line (half of it), or none.
  it.each([[2, false], [5, true], [6, false], [11, true], [23, false], [40, true]])('crash at checkpoint save %i (torn line: %s): re-sends exactly the batch in flight, at most max_batch', async (crashAt, torn) => {
    const sink = new FakeSink(MAX_BATCH);
    let saves = 0;
    let batchesAtLastSave = 0;
    let crash: { batches: number; afterBatch: boolean } | undefined;
    const dead = (): Error => Object.assign(new Error('process killed'), { code: 'EIO' });
    const save = (): boolean => {
      saves++;
      // From the crash on, the process is gone: nothing it writes reaches the disk.
      crash ??= saves >= crashAt ? { batches: sink.batches.length, afterBatch: sink.batches.length > batchesAtLastSave } : undefined;
      if (crash) return false;
      batchesAtLastSave = sink.batches.length;
      return true;
    };
    let tornWritten = false;
    const dying: StateFs = {
      ...nodeStateFs,
      async rename(from, to) {
        if (!save()) throw dead();
        await nodeStateFs.rename(from, to);
      },
      async appendSynced(path, data) {
        if (!save()) {
          if (torn && !tornWritten) await nodeStateFs.appendSynced(path, data.slice(0, Math.floor(data.length / 2)));
          tornWritten = true;
          throw dead();
        }
        await nodeStateFs.appendSynced(path, data);
      },
      async truncate(path) {
        if (crash) throw dead();
        await nodeStateFs.truncate(path);
      },
    };
    const first = rig.forwarder(sink, new LastSamples(), {}, { fs: dying });
    for (let i = 0; i < 10 && !crash; i++) {
      await first.pollOnce();
      rig.sim.clock.advance(30 * S);
    }
    await first.stop();
    if (!crash) throw new Error('no crash happened');

    const samples = new LastSamples();
    await polls(rig.forwarder(sink, samples), rig.sim, 3, 30 * S);
    const cursor = cursorOf(rig.dir);
    const uids = sink.uids();
    const seen = new Set<string>();
    const twice = uids.filter((id) => seen.has(id) || !seen.add(id));
    // The batch whose save was lost is sent again; a lost window save re-sends nothing (its batches were saved).
    const inFlight = crash.afterBatch ? (sink.batches[crash.batches - 1] ?? []).map((e) => e.uid) : [];
    expect(new Set(twice)).toEqual(new Set(inFlight));
    expect(twice.length).toBe(inFlight.length);
    expect(twice.length).toBeLessThanOrEqual(MAX_BATCH);
    expect(new Set(uids)).toEqual(new Set(denyIds(rig.sim, ORIGIN, cursor)));
    // Counted once: the lost save took the batch's counts with it.
    expect(counterMap(samples.counters)).toEqual(expectedCounters(rig.sim, ORIGIN, cursor));
  });
});

describe('WafEventForwarder start-up with a damaged checkpoint', () => {
  it.each([
    ['not JSON', '{"version":1,"data":{"originMs":'],
    ['wrong shape', JSON.stringify({ version: 1, data: { originMs: 1, cursorMs: 0, delivered: {}, counters: [] } })],
    ['another format version', JSON.stringify({ version: 9, data: {} })],
  ])('%s: refuses to start, names the file, sends nothing, leaves it alone', async (_name, text) => {
    const path = join(rig.dir, `${CHECKPOINT_NAME}.json`);
    writeFileSync(path, text);
    const sink = new FakeSink(10);
    const f = rig.forwarder(sink, new LastSamples());
    await expect(f.start()).rejects.toThrow(new RegExp(`state file ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*Refusing to start`));
    expect(sink.attempts).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });
});

describe('WafEventForwarder checkpoint journal', () => {
  const stopAfterPolls = async (n: number, sink: FakeSink): Promise<void> => {
    const f = rig.forwarder(sink, new LastSamples());
    await polls(f, rig.sim, n, 30 * S);
    await f.stop();
  };

  it('a journal line damaged other than by a crash (not the last line) refuses start-up naming the journal; nothing sent', async () => {
    await stopAfterPolls(1, new FakeSink(8));
    const journal = join(rig.dir, `${CHECKPOINT_NAME}.journal`);
    writeFileSync(journal, `{"g":1,"d":[["x",1]],"c":[]}\n{"g":1,"d":[["y",\n{"g":1,"d":[],"c":[]}\n`);
    const sink = new FakeSink(8);
    const f = rig.forwarder(sink, new LastSamples());
    await expect(f.start()).rejects.toThrow(new RegExp(`state file ${journal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: line 2 is not valid JSON.*Refusing to start`));
    expect(sink.attempts).toBe(0);
  });

  it('a window done is a journal line until the journal holds as much as the snapshot; a restart resumes where the last one ended', async () => {
    let snapshots = 0;
    let moves = 0;
    const counting: StateFs = {
      ...nodeStateFs,
      async rename(from, to) {
        snapshots++;
        await nodeStateFs.rename(from, to);
      },
      async appendSynced(path, data) {
        moves += data.split('\n').filter((line) => line !== '' && (JSON.parse(line) as { a?: unknown }).a !== undefined).length;
        await nodeStateFs.appendSynced(path, data);
      },
    };
    const sink = new FakeSink(8);
    const first = rig.forwarder(sink, new LastSamples(), {}, { fs: counting });
    let windows = 0;
    for (let i = 0; i < 12; i++) {
      const report = await first.pollOnce();
      expect(report.ok).toBe(true);
      windows += report.windows;
      rig.sim.clock.advance(30 * S);
    }
    const lag = first.stats().checkpointLagSeconds;
    await first.stop();
    // One snapshot at the first start; after that, windows done went to the journal until it held as much.
    expect(moves).toBeGreaterThan(0);
    expect(snapshots - 1 + moves).toBe(windows);
    // Restarted, the forwarder stands where the last window left it (the journal's last move), with the same ids.
    const samples = new LastSamples();
    const second = rig.forwarder(sink, samples);
    await second.start();
    expect(second.stats().checkpointLagSeconds).toBe(lag);
    await polls(second, rig.sim, 3, 30 * S);
    const uids = sink.uids();
    expect(uids.length).toBe(new Set(uids).size);
    expect(new Set(uids)).toEqual(new Set(denyIds(rig.sim, ORIGIN, cursorOf(rig.dir))));
    expect(counterMap(samples.counters)).toEqual(expectedCounters(rig.sim, ORIGIN, cursorOf(rig.dir)));
  });

  it('a snapshot written before the journal existed (no generation) loads, with nothing re-sent', async () => {
    const sink = new FakeSink(8);
    await stopAfterPolls(2, sink);
    const path = join(rig.dir, `${CHECKPOINT_NAME}.json`);
    const saved = savedCheckpoint(rig.dir);
    // The old format: everything in one file, no `journal`, no journal file.
    writeFileSync(path, JSON.stringify({ version: 1, data: saved }));
    rmSync(join(rig.dir, `${CHECKPOINT_NAME}.journal`), { force: true });
    const samples = new LastSamples();
    await polls(rig.forwarder(sink, samples), rig.sim, 2, 30 * S);
    const uids = sink.uids();
    expect(uids.length).toBe(new Set(uids).size);
    expect(new Set(uids)).toEqual(new Set(denyIds(rig.sim, ORIGIN, cursorOf(rig.dir))));
    expect(counterMap(samples.counters)).toEqual(expectedCounters(rig.sim, ORIGIN, cursorOf(rig.dir)));
  });
});
