// The OTLP sender reads two sources as one: the durable history of counted buckets and the snapshot of the
// families without buckets. Each page goes back to the source it came from.
import type { HistoryPage, HistorySource, PageSettlement } from '../push/source.js';

export function bothSources(history: HistorySource, snapshot: HistorySource): HistorySource {
  const mine = new WeakSet<HistoryPage>();
  return {
    heads: () => {
      const own = snapshot.heads();
      for (const page of own) mine.add(page);
      return [...history.heads(), ...own];
    },
    pendingSamples: () => history.pendingSamples() + snapshot.pendingSamples(),
    settle: async (pages: readonly HistoryPage[], how: PageSettlement) => {
      const own = pages.filter((p) => mine.has(p));
      const counted = pages.filter((p) => !mine.has(p));
      if (own.length > 0) await snapshot.settle(own, how);
      // Only pages of its own: an empty settle would still write the confirmations file.
      if (counted.length > 0) await history.settle(counted, how);
    },
    onPages: (listener) => {
      const offs = [history.onPages(listener), snapshot.onPages(listener)];
      return () => offs.forEach((off) => off());
    },
  };
}
