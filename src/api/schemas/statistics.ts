// Operations 4-8, the layer-7 statistics: usage, access monitoring (v2 and
// the resource-monitoring variant), advanced top-N monitoring and CC attacks.
// Each operation accepts its own metricName set; the server answers an
// unknown one with a business error that does not say which item was wrong.
import { z } from 'zod';
import {
  action,
  envelope,
  int64,
  interval,
  list,
  looseInt,
  looseNumber,
  looseText,
  nonEmpty,
  openObject,
  pageNumber,
  params,
  series,
  statisticOtherFilter,
  withList,
} from './common.js';

const USAGE_METRICS = ['trafficTrend', 'totalTraffic', 'bandwidthTrend', 'totalBandwidth'] as const;
const ACCESS_V2_METRICS = [
  'trafficTrend',
  'trafficRank',
  'bandwidthTrend',
  'requestTrend',
  'requestRank',
  'statusCodeTrend',
  'statusCodeRank',
  'requestTimeTrend',
] as const;
const ACCESS_METRICS = [
  'trafficTrend',
  'trafficRank',
  'totalTraffic',
  'bandwidthTrend',
  'bandwidthRank',
  'totalRequest',
  'requestTrend',
  'requestRank',
] as const;
export const MOST_METRICS = [
  'ip',
  'http_user_agent',
  'domain',
  'url',
  'status',
  'request_method',
  'referer',
  'protocol',
  'server_port',
  'ua_os_name',
  'hostname',
  'country_name',
  'city_name',
  'timezone',
  'scheme',
] as const;
export const MOST_DIMENSIONS = ['requestCount', 'trafficSum'] as const;
const CC_METRICS = ['ccPolicyTrend', 'attack_detail', 'domain', 'http_user_agent'] as const;

/** The shared Action makes metricName optional outside the log, usage and CC queries. */
function optionalMetricAction<const M extends readonly [string, ...string[]]>(metrics: M) {
  return action(metrics).partial({ metricName: true });
}

// ------------------------------------------------------------------- requests

export const describeL7UsageDataRequest = z.looseObject({
  interval,
  oids: z.array(z.string()),
  params,
  action: z.array(action(USAGE_METRICS)),
});

const accessFields = {
  domains: z.array(z.string()),
  interval,
  params,
  mostDimension: z.string().optional(),
  otherFilter: z.array(statisticOtherFilter).optional(),
  pageNum: pageNumber.optional(),
  pageSize: pageNumber.optional(),
  searchHeader: openObject.optional(),
  terminal: z.string().optional(),
  userId: int64.optional(),
};

export const describeL7DataV2Request = z.looseObject({
  ...accessFields,
  action: z.array(optionalMetricAction(ACCESS_V2_METRICS)),
});

// terminal is documented as "cdn" (the text also says "cnd" and "source"), so
// it is required but not narrowed to a set the document itself contradicts.
export const describeL7DataRequest = z.looseObject({
  ...accessFields,
  action: z.array(optionalMetricAction(ACCESS_METRICS)),
  mostDimension: nonEmpty,
  pageNum: pageNumber,
  pageSize: pageNumber,
  terminal: nonEmpty,
});

export const describeL7MostDataRequest = z.looseObject({
  action: z.array(optionalMetricAction(MOST_METRICS)),
  domains: z.array(z.string()).optional(),
  interval,
  pageNum: pageNumber,
  pageSize: pageNumber,
  params: params.optional(),
  terminal: z.string().optional(),
  userId: int64.optional(),
  mostDimension: z.enum(MOST_DIMENSIONS),
  // Required upstream, "send [] when none": absence becomes [].
  otherFilter: z.array(statisticOtherFilter).default([]),
});

export const describeL7CCAttackRequest = z.looseObject({
  action: z.array(action(CC_METRICS)).optional(),
  domains: z.array(z.string()).optional(),
  interval,
  params: params.optional(),
});

// -------------------------------------------------------------------- answers

// Totals are byte/request counts documented as integers; they are read as
// numbers so that a fractional peak does not make the whole answer unreadable.
const total = looseNumber.optional();

const usageItem = z.looseObject({
  metricName: z.string(),
  objectArrayListMap: z
    .looseObject({
      inTraffic: series.optional(),
      /** Spelled so by the vendor. */
      ouTraffic: series.optional(),
      // Accepted too in case the vendor corrects the spelling.
      outTraffic: series.optional(),
      totalTraffic: series.optional(),
      inBandwidth: series.optional(),
      outBandwidth: series.optional(),
      totalBandwidth: series.optional(),
    })
    .nullish(),
  totalMap: z
    .looseObject({
      inTotalTraffic: total,
      outTotalTraffic: total,
      totalTraffic: total,
      maxInBandwidth: total,
      maxOutBandwidth: total,
      maxTotalBandwidth: total,
    })
    .nullish(),
});

export const describeL7UsageDataAnswer = withList(usageItem);

const bytesKeys = { upstreamBytesSent: total, totalBytesSent: total, bytesSent: total };

const accessV2Item = z.looseObject({
  metricName: z.string(),
  objectArrayListMap: z
    .looseObject({
      upstreamBytesSent: series.optional(),
      totalBytesSent: series.optional(),
      bytesSent: series.optional(),
      requestCounter: series.optional(),
      list1xx: series.optional(),
      list2xx: series.optional(),
      list3xx: series.optional(),
      list4xx: series.optional(),
      list5xx: series.optional(),
      requestTime: series.optional(),
    })
    .nullish(),
  totalMap: z
    .looseObject({
      ...bytesKeys,
      requestCounter: total,
      '1xx': total,
      '2xx': total,
      '3xx': total,
      '4xx': total,
      '5xx': total,
    })
    .nullish(),
  maxMap: z
    .looseObject({
      ...bytesKeys,
      bytesSent95Peak: total,
      totalBytesSent95Peak: total,
      upstreamBytesSent95Peak: total,
    })
    .nullish(),
  // Rank metrics: the shape of the list items is not documented.
  list: list(z.unknown()),
  total,
});

export const describeL7DataV2Answer = withList(accessV2Item);

const valueBox = z.looseObject({ value: looseText });
const trafficBranch = z.looseObject({ totalTraffic: valueBox.optional() });

/** The object form of operation 6 listed in the field table (values are strings there). */
const accessSummary = z.looseObject({
  cnd: trafficBranch.optional(),
  // The document writes both "cnd" and "cdn" for the access terminal.
  cdn: trafficBranch.optional(),
  source: trafficBranch.optional(),
  bandwidth95Peak: looseText.optional(),
  totalRequest: valueBox.optional(),
  topBandwidth: z.looseObject({ value: looseText, date: looseText.optional() }).optional(),
});

/** The array form the sample returns; rank metrics' `data` is not shown, so an array is tolerated. */
const accessItem = z.looseObject({
  metricName: z.string(),
  data: z.union([z.looseObject({ trend: series.optional() }), z.array(z.unknown())]).nullish(),
});

export const describeL7DataAnswer = envelope.extend({
  data: z.union([z.array(accessItem), accessSummary]).nullish(),
});

const mostItem = z.looseObject({
  metricName: z.string(),
  data: z
    .looseObject({
      total: looseNumber,
      // Names are dimension values; numeric ones (status, server_port) may come as numbers.
      list: list(z.looseObject({ name: looseText, value: looseNumber })),
      termsCount: looseInt,
    })
    .nullish(),
});

export const describeL7MostDataAnswer = withList(mostItem);

/** Items of data are not documented ("array of string" in the model). */
export const describeL7CCAttackAnswer = withList(z.unknown());
