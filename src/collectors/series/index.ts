// Shared machinery of the time-series collectors (access, usage, top-N,
// cc-attack, waf-trend): series keys, the request window built from per-series
// watermarks, back-fill chunking, counting responses into increments, and
// the cycle that drives them and assembles its output. Written once so the
// five agree on every rule.
export { seriesKey, type Labels } from './keys.js';
export {
  bucketMs, checkSeriesOptions, nonNegative, positiveInteger, type Grid, type SeriesOptions,
} from './options.js';
export {
  MAX_BUCKETS_PER_REQUEST, chunkRange, paramsOf, planSeries, requestWindow, spanOf,
  type BucketRange, type RequestWindow, type TimeSpan, type WindowInput,
} from './window.js';
export { pieceSpan, upstreamClock, type CounterSpec, type Piece, type UpstreamClock } from './answer.js';
export {
  countedResult, countTarget, gaugeSample, type CountOutcome, type TargetAnswers, type TargetConvertInput, type TargetResult,
} from './count.js';
export { asError, fetchChunks, fetchTarget, type Fetched, type Send, type Tally, type TargetFetch } from './fetch.js';
export {
  assemble, closeCycle, collectTrend, inForce, NoDataError, seriesCollector, type CycleInput, type FetchedUnit, type TrendCycle, type TrendUnit, type UnitAnswers,
} from './collect.js';
export { AuditBook, NO_AUDIT, type AuditOptions, type AuditOutcome } from './audit.js';
export { countView, readBuckets, seriesFindings, type BucketRead, type CountedRange, type CountView } from './read-buckets.js';
