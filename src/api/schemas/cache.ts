// Operations 15 and 16: cache refresh/preload records and URL warm-up.
import { z } from 'zod';
import { area, envelope, int64, looseInt, openObject, pageNumber, pagedList, params } from './common.js';

/** 1 URL preload, 2 URL refresh, 3 directory refresh. */
const CACHE_RECORD_TYPES = ['1', '2', '3'] as const;

export const getCacheRecordListRequest = z.looseObject({
  type: z.enum(CACHE_RECORD_TYPES),
  pageNum: pageNumber,
  pageSize: pageNumber,
  params,
  search: z.string().optional(),
  searchHeader: openObject.optional(),
  userId: int64.optional(),
});

const cacheRecordRow = z.looseObject({
  id: looseInt,
  value: z.string(),
  /** Epoch seconds in the sample. */
  ctime: looseInt,
  total: looseInt,
  success: looseInt,
});

export const getCacheRecordListAnswer = pagedList(cacheRecordRow);

// The document does not say which fields are required. A push without URLs or
// without a target area cannot mean anything useful, so both are required here
// rather than leaving the choice of area to an undocumented server default.
export const pushUrlsCacheRequest = z.looseObject({
  urls: z.array(z.string().min(1, 'must not be empty')).min(1, 'at least one URL is required'),
  area,
  parseM3U8: z.boolean().optional(),
  urlEncode: z.boolean().optional(),
});

export const pushUrlsCacheAnswer = envelope;
