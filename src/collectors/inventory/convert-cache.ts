// Cache refresh/preload records from getCacheRecordList, summed per type
// over the window they were requested for. Pure: parsed rows in, samples out.
import type { GetCacheRecordListAnswer } from '../../api/index.js';
import {
  CACHE_FAMILIES,
  CACHE_TASK_URLS,
  CACHE_TASK_URLS_SUCCEEDED,
  CACHE_TASKS,
  CACHE_TYPES,
  type CacheTypeCode,
} from './metrics.js';
import { SampleSet, type Converted } from './sample-set.js';

export type CacheRecordRow = GetCacheRecordListAnswer['rows'][number];

/**
 * Rows per request type. Every type gets its three series, 0 when it had no
 * record in the window (an idle window is a value, not a gap). The window
 * itself is the request's params: rows are not re-filtered on ctime, whose
 * unit only the document's sample shows.
 */
export function convertCacheRecords(byType: Readonly<Record<CacheTypeCode, readonly CacheRecordRow[]>>): Converted {
  const out = new SampleSet(CACHE_FAMILIES);
  for (const { code, type } of CACHE_TYPES) {
    const rows = out.unique(byType[code], (r) => String(r.id), CACHE_TASKS.name, 'id');
    const labels = { type };
    out.addGauge(CACHE_TASK_URLS, labels, rows.reduce((sum, r) => sum + r.total, 0));
    out.addGauge(CACHE_TASK_URLS_SUCCEEDED, labels, rows.reduce((sum, r) => sum + r.success, 0));
    out.addGauge(CACHE_TASKS, labels, rows.length);
  }
  return out.build();
}
