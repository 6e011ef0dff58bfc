// Which pages go into the next request, and whether it goes now or waits for more: pure, so it is tested without a clock.
import type { HistoryPage } from './source.js';

export interface Batch {
  /** Oldest first; at most one page per owner (the source offers only heads). */
  readonly pages: readonly HistoryPage[];
  readonly samples: number;
  /** Send now: the request is full, or a head did not fit, or the oldest page has waited its deadline. */
  readonly full: boolean;
  /** Until the oldest page's deadline (<= 0: due). */
  readonly dueInMs: number;
}

/**
 * Takes whole heads, oldest `createdMs` first (then owner, seq, so a tie is
 * stable), while the total stays within `maxSamples`; the first always, even
 * larger, so no page can block its queue. Stops at the first head that does
 * not fit rather than skip to a smaller one: the oldest go first.
 * `undefined` when there are no heads.
 */
export function composeBatch(heads: readonly HistoryPage[], maxSamples: number, deadlineMs: number, nowMs: number): Batch | undefined {
  if (heads.length === 0) return undefined;
  const sorted = [...heads].sort(
    (a, b) => a.createdMs - b.createdMs || (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0) || a.seq - b.seq,
  );
  const pages: HistoryPage[] = [];
  let samples = 0;
  let leftOut = false;
  for (const page of sorted) {
    if (pages.length > 0 && samples + page.samples.length > maxSamples) {
      leftOut = true;
      break;
    }
    pages.push(page);
    samples += page.samples.length;
  }
  const oldest = pages[0] as HistoryPage;
  const dueInMs = oldest.createdMs + deadlineMs - nowMs;
  return { pages, samples, full: leftOut || samples >= maxSamples, dueInMs };
}
