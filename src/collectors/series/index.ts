// Shared machinery of the time-series collectors (access, usage, top-N,
// cc-attack, waf-trend): series keys, the request window built from per-series
// watermarks, back-fill chunking, the one driver that counts answers into
// increments (collect.ts), and the cycle's output. Written once so the five
// agree on every rule.
export { seriesKey,  } from './keys.js';
export {
  bucketMs, checkSeriesOptions, positiveInteger, type Grid, type SeriesOptions,
} from './options.js';
export {
   chunkRange, paramsOf, planSeries, requestWindow, spanOf, type BucketRange, type RequestWindow, type TimeSpan,
} from './window.js';
export { ClockReading, pieceSpan, type CounterSpec, type Piece, type Send, type SeriesTarget } from './answer.js';
export {
  gaugeSample, targetResult, type Converted, type TargetAnswers, type TargetConvertInput, type TargetResult,
} from './count.js';
export { asError, type Tally } from './fetch.js';
export {
  driveSeries,
} from './collect.js';
export { seriesCollector, type SeriesState } from './collector.js';
export { assemble, NoDataError } from './sum.js';
export { AuditRecord, NO_AUDIT,  } from './audit.js';
export { readBuckets,  } from './read-buckets.js';
