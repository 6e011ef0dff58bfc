// What a doctor run reports: one result per check, each saying what the
// exporter assumes, what the upstream showed, a verdict and the config to set.
import type { ContractCheck } from '../collectors/contract/checks.js';

/**
 * Every check, in the order they are printed. The contract checks keep the
 * names of edge_exporter_contract_mismatches_total{check}, so what the doctor
 * finds on day one and what the daemon counts later read the same.
 */
export const DOCTOR_CHECKS = [
  'auth',
  'path_prefix',
  'operations',
  'bucket_width',
  'missing_buckets',
  'totals',
  'bandwidth_unit',
  'timestamp_offset',
  'out_of_range',
  'clock_offset',
  'timezone',
  'late_revision',
  'waf_audit',
] as const;
export type CheckId = (typeof DOCTOR_CHECKS)[number];

/** `true` only while every check the daemon counts has a doctor check of the same name; a new one breaks the build here. */
const _contractChecksCovered: ContractCheck extends CheckId ? true : never = true;

/** `unknown`: the run could not tell (no data, not reached, an error other than a refusal). */
export type Verdict = 'ok' | 'differs' | 'unknown';

/** A config key and the value that fits what was observed. */
export interface Setting {
  readonly key: string;
  readonly value: string;
}

export interface CheckResult {
  readonly id: CheckId;
  readonly verdict: Verdict;
  readonly assumed: string;
  /** One line per thing looked at (an operation, a series, a range). */
  readonly observed: readonly string[];
  /** What to set when the verdict is `differs` and config can fix it; empty otherwise. */
  readonly set: readonly Setting[];
  /** Why there is nothing to set, or what the daemon does about it. */
  readonly note?: string;
}

export interface DoctorSummary {
  readonly ok: number;
  readonly differs: number;
  readonly unknown: number;
  /** The upstream answered 401/403, or nothing at all. */
  readonly refused: boolean;
  /** Requests sent (retries not counted). */
  readonly requests: number;
  readonly durationMs: number;
  /** 0: nothing differs; 1: something does, or the upstream refused us. */
  readonly exitCode: 0 | 1;
}

export interface DoctorReport {
  readonly checks: readonly CheckResult[];
  readonly summary: DoctorSummary;
}

/** One piece of a check's evidence; a check's verdict is the worst of its parts. */
export interface Part {
  readonly verdict: Verdict;
  readonly observed: string;
  readonly set?: readonly Setting[];
}

/** differs beats ok beats unknown: one contradiction is enough, one confirmation beats silence. */
export function combine(id: CheckId, parts: readonly Part[], note?: string): CheckResult {
  const verdict: Verdict = parts.some((p) => p.verdict === 'differs') ? 'differs' : parts.some((p) => p.verdict === 'ok') ? 'ok' : 'unknown';
  const set = dedupe(parts.filter((p) => p.verdict === 'differs').flatMap((p) => p.set ?? []));
  return {
    id, verdict, assumed: ASSUMED[id],
    observed: parts.length > 0 ? parts.map((p) => p.observed) : ['nothing to look at with the enabled collectors'],
    set,
    ...(note === undefined ? {} : { note }),
  };
}

/** A check with no evidence at all, e.g. not reached before the deadline or after a refusal. */
export function unknownResult(id: CheckId, observed: string, note?: string): CheckResult {
  return { id, verdict: 'unknown', assumed: ASSUMED[id], observed: [observed], set: [], ...(note === undefined ? {} : { note }) };
}

function dedupe(settings: readonly Setting[]): Setting[] {
  const byKey = new Map<string, Setting>();
  for (const s of settings) if (!byKey.has(s.key)) byKey.set(s.key, s);
  return [...byKey.values()];
}

/** What the exporter assumes, per check (docs/upstream-notes.md says why). */
const ASSUMED: Readonly<Record<CheckId, string>> = {
  auth: 'the token (upstream.token, upstream.token_file or EDGE_API_TOKEN) is accepted for every operation used',
  path_prefix: 'operations 9-13, documented without /prod-api, answer at the configured path (default: with /prod-api)',
  operations: 'every read operation the enabled collectors use answers at its configured path',
  bucket_width: 'statistics points are spaced by the interval asked for; logTread buckets are no coarser than collectors.waf_trend.interval',
  missing_buckets: 'every bucket of a series is listed, zero buckets included',
  totals: 'totalMap / count equal the sum of the points shown',
  bandwidth_unit: 'bandwidth values are in upstream.units.bandwidth (bandwidth x bucket seconds = the bucket\'s traffic)',
  timestamp_offset: 'WAF record timeStamps carry a zone offset',
  out_of_range: 'answers hold only points and records inside the range asked for',
  clock_offset: 'the upstream\'s clock agrees with ours to within one bucket',
  timezone: 'the upstream reads beginTime/endTime in upstream.timezone',
  late_revision: 'a bucket does not change after collectors.<name>.delay',
  waf_audit: 'logTread\'s deny count of a bucket is the number of deny records logs returns for it (what the WAF delivery audit, waf_events.audit, holds against what was delivered)',
};
