// Request bodies and answers the client tests share.

/** A valid describeL7UsageData body. */
export const usageRequest = {
  interval: '5m' as const,
  oids: ['pkg-1'],
  params: { beginTime: '2026-03-10 00:00:00', endTime: '2026-03-10 01:00:00' },
  action: [{ metricName: 'trafficTrend' as const }],
};

/** An empty successful envelope. */
export const OK = { code: 200, msg: 'ok', data: [] };
