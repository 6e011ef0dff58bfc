// Operations 17-21: live-acceleration orders bound to a platform user, and
// live-quality reports. Per-item problems come back as result codes in `data`
// (see the document's result-code table), not as HTTP errors, so the answer's
// items keep every field optional except `status`: a rejected item may lack an
// orderId or dates.
//
// uid/platformId agreement is deliberately not checked here: the server
// reports it per item (code 2) and other items of the batch still go through.
import { z } from 'zod';
import {
  carrier,
  dateOrDateTimeString,
  dateString,
  dateTimeString,
  int64,
  looseInt,
  looseText,
  nonEmpty,
  openObject,
  pageNumber,
  pagedList,
  searchFilter,
  withList,
} from './common.js';
import { isDateTimeString } from '../time.js';

const VQ_FILTER_LABELS = ['dataId', 'uid'] as const;

// ------------------------------------------------------------------- requests

// endMonthTime's format is not shown; both the request convention
// (yyyy-MM-dd HH:mm:ss) and a plain date are accepted.
const createPackOrder = z.looseObject({
  platformId: nonEmpty,
  uid: nonEmpty,
  source: carrier,
  endMonthTime: dateOrDateTimeString,
  isRenew: z.boolean(),
  nickname: z.string().optional(),
  province: z.string().optional(),
});

export const createHostAcceleratePackOrderRequest = z.looseObject({
  packOrder: z.array(createPackOrder).min(1, 'at least one order is required'),
});

const updatePackOrder = z.looseObject({
  endMonthTime: dateOrDateTimeString,
  isRenew: z.boolean(),
  orderId: nonEmpty,
  source: carrier,
  uid: nonEmpty,
  nickname: z.string().optional(),
  province: z.string().optional(),
});

export const updateHostAcceleratePackOrderRequest = z.looseObject({
  updateOrders: z.array(updatePackOrder).min(1, 'at least one order is required'),
});

const modifyPackOrder = z.looseObject({
  orderId: nonEmpty,
  oldUid: nonEmpty,
  newUid: nonEmpty,
  newPlatformId: nonEmpty,
  executeTime: dateString,
  // Typed boolean in the vendor schema but a string in its sample; a nickname is text.
  newNickname: z.string().optional(),
});

export const modifyHostAcceleratePackOrderRequest = z.looseObject({
  modifyOrders: z.array(modifyPackOrder).min(1, 'at least one order is required'),
});

// startTime/endTime have no format of their own, so the document's request
// convention (yyyy-MM-dd HH:mm:ss) applies: a bare date would leave open which
// instant of that day an end means. Checked like Params, so a reversed range
// is named here rather than refused upstream.
export const describeHostAcceleratePackOrderRequest = z
  .looseObject({
    pageNum: pageNumber,
    pageSize: pageNumber,
    startTime: dateTimeString.optional(),
    endTime: dateTimeString.optional(),
    source: carrier.optional(),
    uid: z.string().optional(),
    params: openObject.optional(),
    userId: int64.optional(),
  })
  .refine(
    // Fixed-width text: string order is time order; only compared once both are well-formed.
    (r) => r.startTime === undefined || r.endTime === undefined || !isDateTimeString(r.startTime) || !isDateTimeString(r.endTime) || r.startTime <= r.endTime,
    { path: ['endTime'], message: 'endTime must not be earlier than startTime' },
  );

export const describeVQUserDataRequest = z.looseObject({
  pageNum: pageNumber.optional(),
  pageSize: pageNumber.optional(),
  filters: z.array(searchFilter(VQ_FILTER_LABELS)).optional(),
  searchHeader: openObject.optional(),
  params: openObject.optional(),
  userId: int64.optional(),
});

// -------------------------------------------------------------------- answers

/** Per-item result code: string-typed upstream, integers in samples; read as a number. */
const resultStatus = looseInt;

const orderResultFields = {
  status: resultStatus,
  orderId: z.string().nullish(),
  uid: z.string().nullish(),
  source: z.string().nullish(),
  province: z.string().nullish(),
  isRenew: z.boolean().nullish(),
  startTime: z.string().nullish(),
  endTime: z.string().nullish(),
};

export const createHostAcceleratePackOrderAnswer = withList(
  z.looseObject({ ...orderResultFields, platformId: z.string().nullish() }),
);

export const updateHostAcceleratePackOrderAnswer = withList(z.looseObject(orderResultFields));

/** The body is not shown; only the per-item status of the activated column is assumed. */
export const modifyHostAcceleratePackOrderAnswer = withList(z.looseObject({ status: resultStatus }));

const liveOrderRow = z.looseObject({
  uid: z.string(),
  platformId: z.string().nullish(),
  startTime: z.string(),
  endTime: z.string(),
  // Both names are documented for the same flag (a bean getter artefact); either may be missing.
  isRenew: z.boolean().nullish(),
  renew: z.boolean().nullish(),
  /** 0 not activated, 1 active, 2 expired. */
  status: looseInt,
  province: z.string().nullish(),
  source: z.string().nullish(),
  nickName: z.string().nullish(),
  message: z.string().nullish(),
  orderId: z.string(),
  executeTime: z.string().nullish(),
});

export const describeHostAcceleratePackOrderAnswer = pagedList(liveOrderRow);

const liveQualityRow = z.looseObject({
  // An identifier used as a filter value (a string), although the sample sends an integer.
  dataId: looseText,
  uid: z.string(),
  image: z.string().nullish(),
  message: z.string().nullish(),
  date: z.string(),
  // Present in the sample only.
  createTime: z.string().nullish(),
});

export const describeVQUserDataAnswer = pagedList(liveQualityRow);

export type LiveOrderRow = z.output<typeof liveOrderRow>;
