// Operations 7 (advanced top-N monitoring) and 8 (CC attacks).
//
// Top-N: each domain's range total (requests for requestCount, bytes for
// trafficSum) is split exactly over the dimension's terms, so `total` equals the
// trend operations' total for the same domains and range, `list` (sorted
// descending, then by name, paged by pageNum/pageSize) sums to `total` over all
// pages, and termsCount counts the non-zero terms.
//
// CC attacks (item shapes not documented; chosen here):
//   ccPolicyTrend  {metricName, data: {trend: [[ms, attackRequests]]}}
//   attack_detail  {metricName, data: {attackRequests, attackedDomains, peakRequests, peakTime (ms or null)}}
//   domain, http_user_agent  {metricName, data: {total, list: [{name, value}], termsCount}}, paged by the
//   action item's pageNo/pageSize (default 1/10).
import { ok, type HandlerTable, type SimRequest } from '../types.js';
import type { SimContext } from '../context.js';
import type { TrafficSample } from '../stats.js';
import { domainTotals, querySeries } from '../stats-series.js';
import { addTo, ALL_STATUS_CODES, MOST_METRICS, split, splitStatus, termsFor, type MostMetric } from '../terms.js';
import {
  guard, interval, metricNames, obj, oneOf, optStr, paging, reqArr, reqStr, type Paging,
} from './common.js';
import { checkOtherFilter, nonEmptyActions, pointsOf, ranked, requestDomains, statRange } from './stat-common.js';

const DIMENSIONS = ['requestCount', 'trafficSum'] as const;
const TERMINALS = ['cdn', 'cnd', 'source'] as const;
const CC_METRICS = ['ccPolicyTrend', 'attack_detail', 'domain', 'http_user_agent'] as const;
const ATTACK_AGENTS = ['python-requests/2.31.0', 'Go-http-client/1.1', 'curl/8.5.0', 'Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1)', '-'];

export function mostHandlers(ctx: SimContext): HandlerTable {
  return {
    describeL7MostData: guard((req) => most(ctx, req)),
    describeL7CCAttack: guard((req) => ccAttack(ctx, req)),
  };
}

function most(ctx: SimContext, req: SimRequest) {
  const b = obj(req.body);
  const iv = interval(b);
  const page = paging(b, true);
  const dimension = oneOf(reqStr(b, 'mostDimension'), DIMENSIONS, 'mostDimension');
  const terminal = optStr(b, 'terminal');
  if (terminal) oneOf(terminal, TERMINALS, 'terminal');
  reqArr(b, 'otherFilter');
  checkOtherFilter(b);
  const names = metricNames(nonEmptyActions(b, true), MOST_METRICS);
  const { begin, end } = statRange(ctx, b, iv, req.now, true);
  const totals = domainTotals(ctx.stats, requestDomains(ctx, b), iv, begin, end, req.now);
  const valueOf = (s: TrafficSample) => (dimension === 'requestCount' ? s.requests : terminal === 'source' ? s.upstreamBytesSent : s.bytesSent);
  const data = names.map((metricName) => {
    const terms = new Map<string, number>();
    for (const [domain, s] of totals) addTo(terms, splitDomain(ctx.world.seed, metricName, domain, s, dimension === 'requestCount', valueOf(s)));
    return { metricName, data: topList(terms, page) };
  });
  return ok({ data });
}

function splitDomain(seed: number, metric: MostMetric, domain: string, s: TrafficSample, byRequests: boolean, value: number): Map<string, number> {
  if (metric !== 'status') return split(seed, `${domain}|${metric}`, value, termsFor(seed, metric, domain));
  if (!byRequests) return split(seed, `${domain}|status-bytes`, value, ALL_STATUS_CODES);
  return splitStatus(seed, domain, { '1xx': s.status1xx, '2xx': s.status2xx, '3xx': s.status3xx, '4xx': s.status4xx, '5xx': s.status5xx });
}

function topList(terms: ReadonlyMap<string, number>, page: Paging) {
  const nonZero = [...terms].filter(([, v]) => v > 0);
  const { list } = ranked(nonZero, page);
  return { total: nonZero.reduce((a, [, v]) => a + v, 0), list, termsCount: nonZero.length };
}

function ccAttack(ctx: SimContext, req: SimRequest) {
  const b = obj(req.body);
  const iv = interval(b);
  const raw = nonEmptyActions(b, false);
  // No action items: answer every CC metric, in the documented order.
  const names = raw.length === 0 ? [...CC_METRICS] : metricNames(raw, CC_METRICS);
  const { begin, end } = statRange(ctx, b, iv, req.now, true);
  const domains = requestDomains(ctx, b);
  const series = querySeries(ctx.stats, domains, iv, begin, end, req.now);
  const totals = domainTotals(ctx.stats, domains, iv, begin, end, req.now);
  const data = names.map((metricName, i) => {
    const item = obj(raw[i] ?? {}, `action[${i}]`);
    const page = paging(item, false, ['pageNo', 'pageSize']);
    switch (metricName) {
      case 'ccPolicyTrend':
        return { metricName, data: { trend: pointsOf(series, (s) => s.ccAttacks) } };
      case 'attack_detail': {
        const top = series.reduce<{ start: number; v: number } | null>((acc, p) => (p.sample.ccAttacks > (acc?.v ?? 0) ? { start: p.start, v: p.sample.ccAttacks } : acc), null);
        return {
          metricName,
          data: {
            attackRequests: series.reduce((a, p) => a + p.sample.ccAttacks, 0),
            attackedDomains: [...totals.values()].filter((s) => s.ccAttacks > 0).length,
            peakRequests: top?.v ?? 0,
            peakTime: top?.start ?? null,
          },
        };
      }
      case 'domain':
        return { metricName, data: topList(new Map([...totals].map(([d, s]) => [d, s.ccAttacks])), page) };
      case 'http_user_agent': {
        const terms = new Map<string, number>();
        for (const [d, s] of totals) addTo(terms, split(ctx.world.seed, `${d}|cc-ua`, s.ccAttacks, ATTACK_AGENTS));
        return { metricName, data: topList(terms, page) };
      }
    }
  });
  return ok({ data });
}
