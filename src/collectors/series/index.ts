// Shared machinery of the time-series collectors (access, usage, top-N,
// cc-attack, waf-trend): series keys, the request window built from per-series
// watermarks, back-fill chunking, counting responses into increments, and
// assembling a cycle's output. Written once so the five agree on every rule.
export { seriesKey, type Labels } from './keys.js';
export {
  bucketMs, checkSeriesOptions, nonNegative, positiveInteger, type Grid, type SeriesOptions,
} from './options.js';
export {
  MAX_BUCKETS_PER_REQUEST, chunkRange, paramsOf, planSeries, requestWindow, spanOf,
  type BucketRange, type RequestWindow, type TimeSpan, type WindowInput,
} from './window.js';
export { convertTarget, countTarget, type CounterSpec, type CountOutcome, type Piece, type TargetConvertInput } from './count.js';
export { fetchChunks, fetchWindow, type FetchInput, type Fetched } from './fetch.js';
export { asError, assemble, gaugeSample, logUncovered, NoDataError, type CycleInput, type Tally, type TargetResult } from './output.js';
export { runTrendTarget, type TrendTargetInput, type TrendTargetRun } from './target.js';
export { AuditBook, NO_AUDIT, type AuditOptions, type AuditOutcome } from './audit.js';
export { audited, type AuditUnit } from './audit-run.js';
export { readBuckets, seriesFindings, type BucketRead, type CountedRange } from './read-buckets.js';
export { upstreamClock, type UpstreamClock } from './upstream-clock.js';
export { pieceSpan } from './piece.js';
