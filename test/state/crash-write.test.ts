// A real crash during a write: a child process saves documents through
// StateStore in a tight loop (crash-writer.ts) and is SIGKILLed at seeded
// random moments, some right after it starts. After every kill a fresh store
// must load, for every name, a whole document that is either the last one
// the child confirmed or the one it had begun (never an error, never a torn
// or mixed one), and the temp files a kill leaves (at most one per name, named
// by the writer's pid) must not break the next load or save, and are removed by
// removeLeftoverTemps.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Rng } from '../../src/simulator/rng.js';
import { StateStore } from '../../src/state/store.js';
import { CRASH_NAMES, crashDoc, crashDocSchema } from './crash-docs.js';

const SEED = 20261122;
const KILLS = 16;
/** Sequence numbers of run k start at k * RUN_SEQ, so every document ever written is distinct. */
const RUN_SEQ = 1_000_000_000;

let child: ChildProcess | undefined;
let dir: string | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** What one run of the child reported for a name: the last save confirmed and the last one begun. */
interface Progress {
  saved?: number;
  begun?: number;
}

interface Run {
  readonly proc: ChildProcess;
  readonly progress: Map<string, Progress>;
  readonly ready: Promise<void>;
  /** All of stdout read and the process gone. */
  readonly closed: Promise<void>;
}

function startWriter(stateDir: string, firstSeq: number): Run {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/state/crash-writer.ts', stateDir, String(firstSeq)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const progress = new Map<string, Progress>();
  let buffered = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  proc.stderr?.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  proc.stdout?.setEncoding('utf8').on('data', (text: string) => {
    buffered += text;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (line === 'ready') {
        markReady();
        continue;
      }
      const [what, name = '', seq] = line.split(' ');
      const p = progress.get(name) ?? {};
      if (what === 'begin') p.begun = Number(seq);
      else if (what === 'saved') p.saved = Number(seq);
      else throw new Error(`unexpected line from the writer: ${line}`);
      progress.set(name, p);
    }
  });
  const closed = new Promise<void>((resolve, reject) => {
    proc.once('close', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited ${code}: ${stderr}`))));
  });
  return { proc, progress, ready, closed };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('StateStore under SIGKILL', () => {
  it(`keeps every document whole through ${KILLS} kills mid-save (seed ${SEED})`, async () => {
    dir = mkdtempSync(join(tmpdir(), 'edge-crash-write-'));
    const rng = new Rng(SEED);
    /** Sequence number each name's file held after the previous kill (undefined: no file yet). */
    const onDisk = new Map<string, number | undefined>();
    let cutShort = 0;
    let tempsLeft = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      const run = startWriter(dir, kill * RUN_SEQ);
      child = run.proc;
      await run.ready;
      // Every fourth kill lands right after start, the others at a random point of the loop.
      if (kill % 4 !== 0) await pause(rng.int(5, 150));
      run.proc.kill('SIGKILL');
      await run.closed;
      child = undefined;

      const store = new StateStore(dir);
      for (const name of CRASH_NAMES) {
        const { saved, begun } = run.progress.get(name) ?? {};
        const confirmed = saved ?? onDisk.get(name);
        const inFlight = begun !== undefined && begun !== saved ? begun : undefined;
        if (inFlight !== undefined) cutShort++;
        const loaded = await store.load(name, crashDocSchema);
        const seq = loaded?.seq;
        expect({ kill, name, allowed: [confirmed, inFlight].includes(seq) }).toEqual({ kill, name, allowed: true });
        // Whole: exactly the document with that number, no mix of two saves.
        if (loaded !== undefined) expect(loaded).toEqual(crashDoc(name, loaded.seq));
        onDisk.set(name, seq);
      }
      // A kill leaves at most one temp file per name, named by the killed writer's pid; clearing them
      // (what the daemon does once it holds the lock) leaves only the documents.
      const temps = readdirSync(dir).filter((f) => f.includes('.json.tmp'));
      const tempOf = (n: string): string[] => temps.filter((f) => new RegExp(`^${n}\\.json\\.tmp-${run.proc.pid}-\\d+$`).test(f));
      expect(CRASH_NAMES.reduce((sum, n) => sum + tempOf(n).length, 0)).toBe(temps.length);
      expect(CRASH_NAMES.filter((n) => tempOf(n).length > 1)).toEqual([]);
      tempsLeft += temps.length;
      expect((await store.removeLeftoverTemps()).length).toBe(temps.length);
      expect(readdirSync(dir).filter((f) => !f.endsWith('.json'))).toEqual([]);
    }
    // The kills did land inside saves, and did leave temp files behind.
    expect(cutShort).toBeGreaterThan(0);
    expect(tempsLeft).toBeGreaterThan(0);
    expect(onDisk.size).toBe(CRASH_NAMES.length);
    expect([...onDisk.values()].every((seq) => seq !== undefined)).toBe(true);

    // A clean save of each name after the kills: one file per name, nothing else.
    const store = new StateStore(dir);
    for (const name of CRASH_NAMES) await store.save(name, crashDoc(name, 7));
    expect(readdirSync(dir).sort()).toEqual(CRASH_NAMES.map((n) => `${n}.json`).sort());
    for (const name of CRASH_NAMES) expect(await new StateStore(dir).load(name, crashDocSchema)).toEqual(crashDoc(name, 7));
  }, 60_000);
});
