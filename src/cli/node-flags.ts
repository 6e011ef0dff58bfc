// Every node/V8 flag the daemon runs under, with why and what it costs.
// `npm start` (package.json), the image (the Dockerfile's ENTRYPOINT) and the
// benchmarks (bench/lib/daemon-process.ts) pass exactly NODE_FLAGS on node's
// command line, where V8 reads them before the heap is set up;
// test/cli/node-flags.test.ts keeps package.json and the Dockerfile alike.
//
// --heap-growing-percent=20. V8 lets the old space grow to up to about four
// times its live size between full collections (the factor grows with the
// heap limit, which Node sizes from the machine's memory, not the
// container's), and the process keeps the high-water mark as RSS. The
// daemon's heap is a stable live set (the store, the ledger, the cached
// exposition) plus each cycle's short-lived answers, so that head room buys
// little. Measured at 100k series (`bench daemon-memory --cycles=2 --built`,
// node 20, three runs each, median; docs/benchmarks.md, "Runtime flags"):
// peak RSS 585 -> 337 MiB, daemon CPU 19.9 -> 29.3 s over the run (more,
// shorter full collections). Kept: 250 MiB for about half again the CPU of
// two cycles, a few seconds a minute.
//
// Not kept: --max-semi-space-size=4 (4 MB semi-spaces instead of V8's 16).
// On top of the heap growth it took the peak from 337 to 303 MiB (10%) for
// 29.3 -> 33.7 s CPU (a sixth more, on V8's GC threads); alone, 585 -> 574 MiB
// for 19.9 -> 21.3 s.
// A few percent of a core for each minute against 33 MiB did not pay.
//
// `edge-exporter` run straight from its bin (npm install -g) gets no node
// flags; V8 reads the heap growth at every heap resize, so `run` sets it late
// (setMissingFlags), which measured the same (340-349 MiB peak) as on the
// command line. Node's documentation warns that flags set after start may do
// nothing or behave unpredictably, so the command line comes first.
import { setFlagsFromString } from 'node:v8';

const HEAP_GROWTH = '--heap-growing-percent=20';

/** Every node/V8 flag the daemon runs under, in the order `npm start` and the image pass them. */
export const NODE_FLAGS: readonly string[] = [HEAP_GROWTH];

/** The flags that still take effect set after start (V8 reads them at every heap resize). */
const LATE_FLAGS: readonly string[] = [HEAP_GROWTH];

/** V8 spells its flags with - or _; the name of `--a-b=1` is `a_b`. */
const flagName = (arg: string): string => arg.replace(/^--/, '').split('=')[0]?.replaceAll('-', '_') ?? '';

/**
 * Sets the late flags that node's command line did not (a value given there
 * wins); the flags it set. For `edge-exporter run` started without NODE_FLAGS.
 */
export function setMissingFlags(execArgv: readonly string[] = process.execArgv): string[] {
  const given = new Set(execArgv.map(flagName));
  const missing = LATE_FLAGS.filter((flag) => !given.has(flagName(flag)));
  for (const flag of missing) setFlagsFromString(flag);
  return missing;
}
