// What a push sender needs of whoever keeps the counted history,
// declared here by its consumer (the collectors' history queues implement it;
// tests use a fake). The sender knows series, times and values, never where
// they came from. A sample with its own time is the collectors' TimedSample,
// defined once there: the history makes them.
import type { TimedSample } from '../../counters/index.js';

export type { TimedSample };

/**
 * Samples counted together, waiting to be pushed: never two samples of one
 * series, so a page re-sent after a crash holds, for each of its series, the
 * newest sample the receiver may already have (a duplicate it accepts), never
 * one older than what it has (which it would refuse with the whole request).
 */
export interface HistoryPage {
  /** The queue it belongs to (a collector). Pages of one owner are pushed in `seq` order. */
  readonly owner: string;
  /** Increases by one per page within an owner. */
  readonly seq: number;
  /** When the page was made (epoch ms): batch_send_deadline counts from here. */
  readonly createdMs: number;
  /** What its pipe made it as (OTLP metrics: the temporality of its points); absent for remote-write. */
  readonly tag?: string;
  readonly samples: readonly TimedSample[];
}

/** How a page left the queue. */
export type PageSettlement = 'sent' | 'refused';

export interface HistorySource {
  /** The oldest unsettled page of each owner that has one. */
  heads(): readonly HistoryPage[];
  /** Samples in unsettled pages, over every owner. */
  pendingSamples(): number;
  /**
   * The receiver confirmed (`sent`) or refused for good (`refused`: a 4xx other
   * than 429) these pages: they leave their queues, and resolves once that is
   * on disk, so a restart does not push them again. Each must be its owner's head.
   * A rejection means the record did not reach the disk: the pages have left
   * their queues, and a restart before the next record pushes them again.
   */
  settle(pages: readonly HistoryPage[], how: PageSettlement): Promise<void>;
  /** Calls `listener` whenever pages are added; returns the unsubscribe. */
  onPages(listener: () => void): () => void;
}
