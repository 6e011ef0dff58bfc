// Every node/V8 flag the daemon runs under, with why and what it costs.
// `npm start` (package.json), the image (the Dockerfile's ENTRYPOINT) and the
// benchmarks (bench/lib/daemon-process.ts, the soak child) pass exactly
// NODE_FLAGS on node's command line, where V8 reads them before the heap is
// set up; test/cli/node-flags.test.ts keeps package.json and the Dockerfile
// alike. Prices: `bench daemon-memory --cycles=2 --built` at 100k series,
// peak RSS and the daemon's CPU over the run, medians (docs/benchmarks.md,
// section 9, has every run, 10k too, and the commands).
//
// --heap-growing-percent=20. V8 lets the old space grow to up to about four
// times its live size between full collections (the factor grows with the
// heap limit, which Node sizes from the machine's memory, not the
// container's), and the process keeps the high-water mark as RSS. The
// daemon's heap is a stable live set (the store, the ledger, the cached
// exposition) plus each cycle's short-lived answers, so that head room buys
// little. Node 20: 585 -> 337 MiB for 19.9 -> 29.3 s CPU (more, shorter full
// collections); node 24: 716 -> 522 MiB for 14.4 -> 21.3 s.
//
// --max-semi-space-size=4. The young generation's semi-spaces at most 4 MB,
// where V8 grows them with the heap limit: to 16 MB on node 20, 64 MB on
// node 24, and each cycle's short-lived answers fill them. On top of the heap
// growth: node 20: 337 -> 304 MiB for 29.3 -> 33.7 s CPU, which alone would
// not pay; node 24: 522 -> 395 MiB for 21.3 -> 27.7 s. Kept for node 24 and
// the image's newer 26 (not measured): without it the 100k daemon on node 24
// passes deploy/kubernetes' 512 Mi memory limit. The CPU is V8's scavenges,
// mostly on its helper threads.
// The WAF forwarder paid for it most (section 12.6 of `git show 7888197:docs/benchmarks.md`): a
// batch's records lived across HTTP round trips, outlived 4 MB semi-spaces
// and were promoted. A 1M-event backlog, node 20: 182.5 MiB peak RSS at 123 µs
// of CPU per event; semi-spaces of 16 MB 221.6 MiB at 98.6 µs; of 32 MB 252.6
// MiB at 86.5 µs. Kept at 4: the bound is 200 MB on a backlog, and
// only 4 meets it. The records are now encoded as they are read and wait as
// bytes (exporters/otel-logs/record-arena.ts, section 12.9 of `git show 7888197:docs/benchmarks.md`).
//
// `edge-exporter` run straight from its bin (npm install -g) gets no node
// flags. V8 reads the heap growth at every heap resize, so `run` sets it late
// (setMissingFlags), which measured the same as on the command line. The
// semi-space size is fixed when the heap is set up: a late one does nothing
// (measured), so those users set it in NODE_OPTIONS, which accepts it
// (docs/deployment.md, "Heap").
// Node's documentation warns that flags set after start may do nothing or
// behave unpredictably, so the command line comes first.
import { setFlagsFromString } from 'node:v8';

const HEAP_GROWTH = '--heap-growing-percent=20';

/** Every node/V8 flag the daemon runs under, in the order `npm start` and the image pass them. */
export const NODE_FLAGS: readonly string[] = [HEAP_GROWTH, '--max-semi-space-size=4'];

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
