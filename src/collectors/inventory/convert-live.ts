// Live acceleration: orders (describeHostAcceleratePackOrder) and
// live-quality reports (describeVQUserData). Pure: parsed rows in, samples out.
import type { DescribeHostAcceleratePackOrderAnswer, DescribeVQUserDataAnswer, PlatformClock } from '../../api/index.js';
import {
  LIVE_ORDER_END,
  LIVE_ORDER_FAMILIES,
  LIVE_ORDER_STATUS,
  LIVE_QUALITY_FAMILIES,
  LIVE_QUALITY_LAST_REPORT,
  LIVE_QUALITY_REPORTS,
} from './metrics.js';
import { parsePlatformTime, SampleSet, type Converted } from './sample-set.js';

export type LiveOrderListRow = DescribeHostAcceleratePackOrderAnswer['rows'][number];
export type LiveQualityRow = DescribeVQUserDataAnswer['rows'][number];

export function convertLiveOrders(rows: readonly LiveOrderListRow[], tz: PlatformClock): Converted {
  const out = new SampleSet(LIVE_ORDER_FAMILIES);
  for (const row of out.unique(rows, (r) => r.orderId, LIVE_ORDER_STATUS.name, 'orderId')) {
    out.stateSet(LIVE_ORDER_STATUS, { order_id: row.orderId, uid: row.uid }, row.status, row.orderId);
    // The order dates' format is not shown; a bare end date means service through that day.
    out.timestamp(LIVE_ORDER_END, { order_id: row.orderId }, row.endTime, row.orderId, tz, 'end-of-day');
  }
  return out.build();
}

/**
 * Reports per uid, and the newest one's time. createTime (sample only) has the
 * time of day; without it the documented `date` counts from its 00:00.
 */
export function convertLiveQuality(rows: readonly LiveQualityRow[], tz: PlatformClock): Converted {
  const out = new SampleSet(LIVE_QUALITY_FAMILIES);
  const perUid = new Map<string, { count: number; newest: number | undefined }>();
  for (const row of out.unique(rows, (r) => r.dataId, LIVE_QUALITY_REPORTS.name, 'dataId')) {
    const entry = perUid.get(row.uid) ?? { count: 0, newest: undefined };
    entry.count += 1;
    const ms = reportTime(row, tz);
    if (ms === undefined) {
      out.issue({ family: LIVE_QUALITY_LAST_REPORT.name, key: row.dataId, field: 'createTime, date', value: row.createTime ?? row.date, reason: 'unreadable report time' });
    } else if (entry.newest === undefined || ms > entry.newest) {
      entry.newest = ms;
    }
    perUid.set(row.uid, entry);
  }
  for (const [uid, { count, newest }] of perUid) {
    out.addGauge(LIVE_QUALITY_REPORTS, { uid }, count);
    if (newest !== undefined) out.addGauge(LIVE_QUALITY_LAST_REPORT, { uid }, newest / 1000);
  }
  return out.build();
}

function reportTime(row: LiveQualityRow, tz: PlatformClock): number | undefined {
  const created = row.createTime?.trim() ? parsePlatformTime(row.createTime, tz, 'start-of-day') : undefined;
  return created ?? parsePlatformTime(row.date, tz, 'start-of-day');
}
