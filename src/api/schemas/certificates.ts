// Operation 14: hosted certificates, whose expiry the exporter watches.
import { z } from 'zod';
import { int64, looseInt, openObject, pageNumber, pagedList, searchFilter } from './common.js';

const CERT_FILTER_LABELS = ['alias', 'issuerDN'] as const;
/** Days until expiry the list can be narrowed to. */
const CERT_END_DAYS = ['7', '30'] as const;

export const describeHostingRequest = z.looseObject({
  filters: z.array(searchFilter(CERT_FILTER_LABELS)).optional(),
  pageNum: pageNumber,
  pageSize: pageNumber,
  searchHeader: z.looseObject({ certEndDay: z.enum(CERT_END_DAYS) }).optional(),
  country: z.string().optional(),
  domainId: int64.optional(),
  params: openObject.optional(),
  searchValue: z.string().optional(),
  tableCul: z.record(z.string(), z.string()).optional(),
  userId: int64.optional(),
});

const hostedCertificateRow = z.looseObject({
  certId: looseInt,
  /** See States; the document also describes it as "remainder when divided by 10". */
  status: looseInt,
  dnsName: z.string().nullish(),
  alias: z.string().nullish(),
  sslcrt: z.string().nullish(),
  subjectDN: z.string().nullish(),
  issuerDN: z.string().nullish(),
  beginTime: z.string().nullish(),
  /** yyyy-MM-dd HH:mm:ss in the platform zone; not checked here so one odd row cannot hide the rest. */
  endTime: z.string(),
  createTime: z.string().nullish(),
});

export const describeHostingAnswer = pagedList(hostedCertificateRow);
