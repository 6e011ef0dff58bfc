// Cuts a cycle's samples into pages of at most `max` samples with no two of
// one series, keeping each series' samples in time order across pages. Why
// one per series: after a crash the page that was on the wire is sent again,
// and each of its samples is then the newest the receiver may hold of its
// series, a duplicate it accepts. Two samples of a series in one page would
// make the older one older than what the receiver holds, and Prometheus
// refuses the whole request for it (out of order). Pure.
import type { KeyedSample } from './samples.js';

export function paginate(samples: readonly KeyedSample[], max: number): KeyedSample[][] {
  const pages: KeyedSample[][] = [];
  /** Per series, the first page its next sample may go to. */
  const next = new Map<string, number>();
  let firstOpen = 0;
  for (const s of samples) {
    let p = Math.max(next.get(s.key) ?? 0, firstOpen);
    while ((pages[p]?.length ?? 0) >= max) p++;
    (pages[p] ??= []).push(s);
    next.set(s.key, p + 1);
    while ((pages[firstOpen]?.length ?? 0) >= max) firstOpen++;
  }
  return pages;
}
