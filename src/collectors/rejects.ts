// Points a conversion refused, carried out of it as data: the conversions stay
// pure, and the engine counts them (edge_exporter_points_rejected_total) and
// logs them (sample-job/reject-log.ts). A point the answer's schema refuses
// (a value that is no number, a bad timestamp, not a [time, value] pair, a
// number past the largest double) never gets here: the whole answer fails as
// a bad response (api/client.ts), so the reasons are what a valid answer can
// still carry.
export const REJECT_REASONS = ['negative', 'non_finite'] as const;
export type PointRejectReason = (typeof REJECT_REASONS)[number];

/** `count` points of one series refused for one reason in one cycle. */
export interface RejectedPoints {
  /** The series key (family and labels, keys.ts), or a gauge's family and labels written the same way. */
  readonly series: string;
  readonly reason: PointRejectReason;
  readonly count: number;
}

/** Why a value cannot be a sample of a counter or a non-negative gauge; undefined when it can. */
export function rejectReason(value: number): PointRejectReason | undefined {
  if (!Number.isFinite(value)) return 'non_finite';
  return value < 0 ? 'negative' : undefined;
}

/** Per-reason tallies, every reason present (0 when none). */
export type RejectTally = Record<PointRejectReason, number>;

export function emptyTally(): RejectTally {
  return { negative: 0, non_finite: 0 };
}

/** The tally's non-zero reasons as entries of one series. */
export function rejectedOf(series: string, tally: Readonly<RejectTally>): RejectedPoints[] {
  return REJECT_REASONS.filter((reason) => tally[reason] > 0).map((reason) => ({ series, reason, count: tally[reason] }));
}

/** Points per reason over a cycle's entries, every reason present. */
export function totalsByReason(rejected: readonly RejectedPoints[]): RejectTally {
  const out = emptyTally();
  for (const r of rejected) out[r.reason] += r.count;
  return out;
}
