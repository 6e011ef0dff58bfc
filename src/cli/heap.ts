// The daemon's own heap setting. V8 lets the old space grow to up to about
// four times its live size between full collections (the factor grows with
// the heap limit, which Node sizes from the machine's memory, not the
// container's), and the process keeps the high-water mark as RSS. The
// daemon's heap is a stable live set (the store, the ledger, the cached
// exposition) plus each cycle's short-lived answers, so that head room buys
// little: at 100k series it was most of a 645 MiB peak for a ~110 MB live
// heap (docs/benchmarks.md, section 7). A growth of 20% over the live size
// costs more, shorter full collections instead. Set at start, before the heap
// is large; a --heap-growing-percent on node's own command line wins (it is
// not allowed in NODE_OPTIONS). The flag is read at every heap resize, so
// setting it at run time takes effect.
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 20;

/** Sets the old space's growth between full collections unless node was started with its own; true when set. */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((a) => a.startsWith('--heap-growing-percent') || a.startsWith('--heap_growing_percent'))) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
