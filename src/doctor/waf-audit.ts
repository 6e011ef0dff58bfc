// waf_audit: the WAF delivery audit (waf_events.audit) holds the upstream's
// logTread deny count of each bucket against the deny events delivered in it,
// and reads a short bucket again. The document does not say that logTread
// counts exactly the records `logs` returns (it may sample, round, or count
// from another index). So both are asked for the same settled buckets, with
// the forwarder's own query, request builders and page reader: one logTread
// request, then the `logs` pages of the newest buckets whose counts fit in
// MAX_PAGES pages. Equal everywhere, the audit's findings are real; different,
// it would report buckets that lost nothing.
import { HOUR_MS, MINUTE_MS, type DescribeLogV2Request, type DescribeLogV2Answer } from '../api/index.js';
import { alignDown } from '../collectors/buckets.js';
import { trendRequest } from '../forwarder/audit-check.js';
import { settledBuckets } from '../forwarder/audit.js';
import { readWindow, type WafQuery } from '../forwarder/fetch.js';
import { recordTime } from '../forwarder/record-time.js';
import { EdgeError } from '../shared/errors.js';
import { humanDuration } from './format.js';
import type { DoctorSetup } from './setup.js';
import { whyNot, type Answer, type Prober } from './probe.js';
import { combine, unknownResult, type CheckResult, type Part } from './types.js';

/** How far back the compared range reaches from the last minute the final pass has read: long enough for a few dozen deny events on most accounts. */
const SPAN_MS = 30 * MINUTE_MS;
/** Most `logs` pages read: with the logTread request, at most 11 requests whatever the account's volume. */
const MAX_PAGES = 10;
/** Buckets printed when they differ. */
const SHOWN = 3;

interface Window {
  readonly startMs: number;
  readonly endMs: number;
}

interface Bucket extends Window {
  readonly counted: number;
}

interface LogsRead {
  /** Each distinct record's time (undefined: unreadable), as the forwarder reads it. */
  readonly times: ReadonlyArray<number | undefined>;
  readonly pages: number;
  /** False: stopped at MAX_PAGES before the last page. */
  readonly complete: boolean;
}

export interface WafAuditProbe {
  readonly range: Window;
  readonly query: WafQuery;
  /** The whole buckets logTread lists inside the range, and whether any point it lists counts something. */
  readonly counts: Answer<{ readonly buckets: readonly Bucket[]; readonly anyCount: boolean }>;
  /** The newest of those buckets whose counts fit in the pages read. */
  readonly compared: readonly Bucket[];
  /** Not read when there is nothing to compare them with. */
  readonly logs?: Answer<LogsRead>;
}

type NoAnswer = Exclude<Answer<unknown>, { kind: 'answer' }>;

/** Carries a probe that got no answer out of readWindow, which knows only answers and errors. */
class Unanswered extends EdgeError {
  readonly code = 'EDGE_DOCTOR_UNANSWERED';
  constructor(readonly answer: NoAnswer) {
    super('not answered');
  }
}

export async function gatherWafAudit(prober: Prober, setup: DoctorSetup): Promise<WafAuditProbe | undefined> {
  const waf = setup.wafEvents;
  if (waf === undefined) return undefined;
  // Whole minutes the final pass has read: what the audit compares, and records ingested within delay + overlap are in.
  const endMs = alignDown('1m', prober.now() - waf.finalPassMs, 0);
  const range = { startMs: endMs - SPAN_MS, endMs };
  const { query } = waf;
  const tread = await prober.ask('describeLogV2', trendRequest(range, query, setup.requestTz));
  if (tread.kind !== 'answer') return { range, query, counts: tread, compared: [] };
  const points = tread.value.data.find((i) => i.metricName === 'logTread')?.objectArrayList ?? [];
  const buckets = settledBuckets(points, range.startMs, range.endMs).sort((a, b) => a.startMs - b.startMs);
  const anyCount = points.some(([, n]) => (n ?? 0) > 0);
  const compared = newestWithin(buckets, (MAX_PAGES - 2) * query.pageSize);
  const probe = { range, query, counts: { kind: 'answer' as const, value: { buckets, anyCount }, sentAt: tread.sentAt }, compared };
  // Counts on no grid to compare on, or a newest bucket alone too big to read: nothing to read the records for.
  if (compared.length === 0 && (anyCount || buckets.length > 0)) return probe;
  const [first] = compared;
  const last = compared.at(-1);
  // Nothing counted: the whole range, whose records (if any) the counts leave out.
  const window = first === undefined || last === undefined ? range : { startMs: first.startMs, endMs: last.endMs };
  return { ...probe, logs: await readLogs(prober, setup, query, window) };
}

/**
 * The newest buckets whose counts add up to at most `budget` records. A page
 * reader stops at a page shorter than the first and asks once more after a
 * short first page (fetch.ts), so that many records take at most MAX_PAGES.
 */
function newestWithin(buckets: readonly Bucket[], budget: number): Bucket[] {
  let sum = 0;
  let i = buckets.length;
  while (i > 0 && sum + (buckets[i - 1]?.counted ?? 0) <= budget) sum += buckets[--i]?.counted ?? 0;
  return buckets.slice(i);
}

async function readLogs(prober: Prober, setup: DoctorSetup, query: WafQuery, window: Window): Promise<Answer<LogsRead>> {
  const sentAt = prober.now();
  const client = {
    describeLogV2: async (request: DescribeLogV2Request): Promise<DescribeLogV2Answer> => {
      const answer = await prober.ask('describeLogV2', request);
      if (answer.kind !== 'answer') throw new Unanswered(answer);
      return answer.value;
    },
  };
  // The prober holds the run's deadline and SIGTERM: past them it answers not_reached, which ends the read here.
  const reader = { client, tz: setup.requestTz, query, signal: new AbortController().signal };
  const seen = new Set<string>();
  const times: Array<number | undefined> = [];
  let pages = 0;
  try {
    for await (const page of readWindow(reader, window)) {
      pages++;
      // A record ingested while paging pushes others a page down: the forwarder drops the repeat by requestId, so do we.
      for (const r of page.records) {
        if (seen.has(r.requestId)) continue;
        seen.add(r.requestId);
        times.push(recordTime(r.timeStamp, setup.tz.offsetMinutes)?.ms);
      }
      if (page.last) return { kind: 'answer', value: { times, pages, complete: true }, sentAt };
      if (pages >= MAX_PAGES) break;
    }
  } catch (err) {
    if (err instanceof Unanswered) return err.answer;
    throw err;
  }
  return { kind: 'answer', value: { times, pages, complete: false }, sentAt };
}

export function judgeWafAudit(probe: WafAuditProbe | undefined, setup: DoctorSetup): CheckResult {
  if (probe === undefined) return unknownResult('waf_audit', 'waf_events is disabled: no forwarder and no audit to check; nothing asked');
  const text = texts(probe, setup);
  if (probe.counts.kind !== 'answer') return unknown(`logTread (${text.asked}): ${whyNot(probe.counts)}`);
  const { buckets, anyCount } = probe.counts.value;
  if (buckets.length === 0 && anyCount) {
    return unknown(`logTread (${text.asked}) lists counts but no whole bucket inside the range whose width its points show (a lone point, or buckets coarser than the range): nothing to compare bucket by bucket`);
  }
  if (probe.logs === undefined) return unknown(`logTread (${text.asked}): the newest settled bucket alone counts ${buckets.at(-1)?.counted ?? 0} deny records, more than ${text.cap} hold`);
  if (probe.logs.kind !== 'answer') return unknown(`logs (${text.asked}): ${whyNot(probe.logs)}`);
  const read = probe.logs.value;
  const requests = `${text.query}; 1 logTread request, ${read.pages} logs page(s)`;
  if (probe.compared.length > 0) return judgeBuckets(probe, setup, read, { ...text, requests });
  // logTread listed nothing to count: the records of the whole range say whether there was anything to count.
  const inRange = read.times.filter((t) => t !== undefined && t >= probe.range.startMs && t < probe.range.endMs).length;
  if (inRange === 0) return unknown(`no deny record in ${text.range} (${requests}): nothing to compare`, NOTHING);
  return differs(setup, [`logTread counts no deny record in ${text.range} (${requests}); logs returns ${inRange}${read.complete ? '' : ' or more'}`]);
}

const NOTHING = 'run it again when the account has deny events.';

function unknown(observed: string, note?: string): CheckResult {
  return combine('waf_audit', [{ verdict: 'unknown', observed }], note);
}

interface Texts {
  readonly range: string;
  readonly query: string;
  /** The query and the range, for a line about a request. */
  readonly asked: string;
  /** How many records this check reads at most. */
  readonly cap: string;
}

function texts(probe: WafAuditProbe, setup: DoctorSetup): Texts {
  const range = `[${setup.tz.formatDateTime(probe.range.startMs)}, ${setup.tz.formatDateTime(probe.range.endMs)})`;
  const query = queryText(probe.query);
  return { range, query, asked: `${query}, ${range}`, cap: `${MAX_PAGES} pages of waf_events.page_size (${probe.query.pageSize})` };
}

/** Each compared bucket's count against the records read with a time in it. */
function judgeBuckets(probe: WafAuditProbe, setup: DoctorSetup, read: LogsRead, text: Texts & { readonly requests: string }): CheckResult {
  const fmt = (ms: number): string => setup.tz.formatDateTime(ms);
  const { asked, cap, requests } = text;
  const rows = probe.compared.map((b) => ({ ...b, records: read.times.filter((t) => t !== undefined && t >= b.startMs && t < b.endMs).length }));
  const [first] = rows;
  const counted = rows.reduce((n, b) => n + b.counted, 0);
  const records = rows.reduce((n, b) => n + b.records, 0);
  const compared = `${rows.length} bucket(s) of ${humanDuration((first?.endMs ?? 0) - (first?.startMs ?? 0))} in [${fmt(first?.startMs ?? 0)}, ${fmt(rows.at(-1)?.endMs ?? 0)})`;
  // Outside every compared bucket (an answer beyond the range, a bucket not listed) or with no readable time: out_of_range's business.
  const uncompared = read.times.length - records;
  const aside = uncompared > 0 ? `; ${uncompared} record(s) outside the compared buckets not compared` : '';
  // Cut short, a bucket's records are a lower bound: only more records than counted is a difference for sure.
  const off = rows.filter((b) => (read.complete ? b.records !== b.counted : b.records > b.counted));
  if (off.length > 0) {
    const atLeast = read.complete ? '' : 'at least ';
    return differs(setup, [
      `${off.length} of ${compared} differ (${requests}): logTread counts ${counted} deny records, logs returns ${atLeast}${records}${aside}`,
      ...off.slice(0, SHOWN).map((b) => `${fmt(b.startMs)}: logTread ${b.counted}, logs ${atLeast}${b.records}`),
      ...(off.length > SHOWN ? [`and ${off.length - SHOWN} more bucket(s)`] : []),
      ...recoveries(rows, read.complete),
    ]);
  }
  if (!read.complete) {
    return unknown(`logs (${asked}): ${read.times.length} records read in ${cap} and more to come, though the ${rows.length} compared bucket(s) count ${counted}: stopped there${aside}`);
  }
  if (counted === 0) return unknown(`no deny record in ${compared} (${requests}): nothing to compare`, NOTHING);
  const left = (probe.counts.kind === 'answer' ? probe.counts.value.buckets.length : 0) - rows.length;
  const older = left > 0 ? `; the ${left} older bucket(s) of the last ${humanDuration(SPAN_MS)} left out: with them the records would take more than ${cap}` : '';
  const audit = setup.wafEvents?.audit === false ? 'the delivery audit (off: waf_events.audit.enabled is false) could be trusted here' : 'the delivery audit can be trusted here';
  return combine('waf_audit', [{
    verdict: 'ok', observed: `consistent: ${compared}, ${records} deny records (${requests}): every logTread count equals its records; ${audit}${older}${aside}`,
  }]);
}

/**
 * What the audit's recoveries would cost at this rate: each bucket counted
 * more than its records is read again once, at least two `logs` requests (a
 * short first page, then the empty one that ends it: fetch.ts). The
 * requests-per-hour estimate counts the audit's logTread request only.
 */
function recoveries(rows: ReadonlyArray<Bucket & { readonly records: number }>, complete: boolean): string[] {
  const [first] = rows;
  const short = rows.filter((b) => b.counted > b.records).length;
  if (!complete || first === undefined || short === 0) return [];
  const perHour = Math.round((short / rows.length) * (HOUR_MS / (first.endMs - first.startMs)));
  return [`the audit would read about ${perHour} bucket(s) an hour again: at least ${2 * perHour} logs requests an hour on top of the requests-per-hour estimate`];
}

function differs(setup: DoctorSetup, observed: readonly string[]): CheckResult {
  const on = setup.wafEvents?.audit !== false;
  const parts: Part[] = observed.map((o, i) => ({
    verdict: 'differs', observed: o, ...(i === 0 && on ? { set: [{ key: 'waf_events.audit.enabled', value: 'false' }] } : {}),
  }));
  return combine('waf_audit', parts,
    'the delivery audit compares these same numbers: a bucket counted more than its records is read again once, then reported ' +
      'unreconciled with a warning, and keeps edge_exporter_waf_events_missing above 0 though nothing was lost; ' +
      'one counted fewer is reported surplus. ' +
      (on ? 'Turn the audit off, or keep it and read its outcomes as a trend only (a steady gap is this upstream, a growing one is events missing).'
        : 'It is off (waf_events.audit.enabled: false): leave it so, or read its outcomes as a trend only.'));
}

function queryText(query: WafQuery): string {
  const domains = query.domains && query.domains.length > 0 ? `${query.domains.length} domain(s)` : 'every domain';
  const severity = query.severity === undefined ? '' : `, severity ${query.severity}`;
  const filters = query.otherFilter && query.otherFilter.length > 0 ? `, ${query.otherFilter.length} other_filter(s)` : '';
  return `deny, ${domains}${severity}${filters}`;
}
