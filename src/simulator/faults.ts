// Injected failures, so the exporter's error handling can be exercised against
// a running upstream. A rule combines one or more fault kinds, may be limited
// to some operations, and may apply to the next `count` matching requests only
// (each matching request uses up one, whether or not a random fault fires).
// Random choices (errorRate, the shufflePoints order) come from a seeded
// generator: a run is repeatable. The body-shape faults (wrongTypes ..
// negativeSeries) rewrite the real answer; mangle.ts says exactly how.
import { isOperationName, type OperationName } from '../api/operations.js';
import { hash32, Rng } from './rng.js';
import { EdgeError } from '../shared/errors.js';

export interface FaultRule {
  /** Delay every answer by this many wall-clock ms. */
  latencyMs?: number;
  /** Probability (0..1) of answering a random 500/502/503 instead. */
  errorRate?: number;
  /** Always answer this 5xx status. */
  status5xx?: number;
  /** Answer 401 as if the token had been revoked. */
  unauthorized?: boolean;
  /** Answer 403 as if a permission had been withdrawn. */
  forbidden?: boolean;
  /** Send a body that is not valid JSON. */
  malformedJson?: boolean;
  /** Announce the full length, send half the body, then drop the connection. */
  truncatedBody?: boolean;
  /** Replace `data` (or `rows` where there is no data) with null. */
  dataNull?: boolean;
  /** Never answer; the socket stays open until the client gives up or the simulator closes. */
  hang?: boolean;
  /** Every leaf of `data` (or `rows`) as a value of another type. */
  wrongTypes?: boolean;
  /** Pad the answer's longest array to this many entries, repeating its elements. */
  hugeArray?: number;
  /** Every time-series point twice. */
  duplicatePoints?: boolean;
  /** Time-series points out of order (a seeded shuffle). */
  shufflePoints?: boolean;
  /** This many extra points, with large values, in buckets after the simulator's now, in every series. */
  futurePoints?: number;
  /** Every point of the series under this key (e.g. `requestCounter`) served negative, -(value + 1). */
  negativeSeries?: string;
  /** Send `Retry-After: N` (seconds) with the rule's status; alone, answer 429 (throttled) with it. */
  retryAfter?: number;
  /** Only these operations (default: all). */
  operations?: OperationName[];
  /** Only requests whose body names one of these domains (`domains` or `domain`); with `dataNull`, that domain's data stops while the others' goes on. */
  domains?: string[];
  /** Only the next N matching requests (default: until cleared). */
  count?: number;
}

/** What the faults decided for one request. */
export interface FaultEffect {
  latencyMs: number;
  hang: boolean;
  /** Status to answer instead of running the operation. */
  status?: number;
  /** Retry-After seconds sent with `status`. */
  retryAfter?: number;
  malformedJson: boolean;
  truncatedBody: boolean;
  dataNull: boolean;
  wrongTypes: boolean;
  /** 0: off; with several rules, the largest. */
  hugeArray: number;
  duplicatePoints: boolean;
  /** Seed of the shuffle; undefined: points keep their order. */
  shuffleSeed: number | undefined;
  /** 0: off; with several rules, the largest. */
  futurePoints: number;
  /** Key of the series served negative; with several rules, the first. */
  negativeSeries: string | undefined;
}

export class FaultSpecError extends EdgeError {
  readonly code = 'EDGE_SIM_FAULT_SPEC';
}

const RANDOM_5XX = [500, 502, 503] as const;

export class Faults {
  private rules: FaultRule[] = [];
  private readonly rng: Rng;

  constructor(seed: number, initial: readonly FaultRule[] = []) {
    this.rng = new Rng(hash32(seed, 'faults'));
    this.set(initial);
  }

  /** Replaces every rule (validated; throws FaultSpecError). */
  set(rules: readonly FaultRule[]): void {
    this.rules = rules.map((r, i) => checkRule(r, `rules[${i}]`));
  }

  add(rule: FaultRule): void {
    this.rules.push(checkRule(rule, 'rule'));
  }

  clear(): void {
    this.rules = [];
  }

  /** The active rules, with what is left of their counts. */
  list(): FaultRule[] {
    return this.rules.map((r) => ({ ...r, ...(r.operations ? { operations: [...r.operations] } : {}), ...(r.domains ? { domains: [...r.domains] } : {}) }));
  }

  /** Decides the faults for one request to `operation` naming `domains` (its body's), using up counts. */
  take(operation: OperationName, domains: readonly string[] = []): FaultEffect {
    const effect: FaultEffect = {
      latencyMs: 0, hang: false, malformedJson: false, truncatedBody: false, dataNull: false,
      wrongTypes: false, hugeArray: 0, duplicatePoints: false, shuffleSeed: undefined, futurePoints: 0, negativeSeries: undefined,
    };
    const named = (r: FaultRule): boolean => !r.domains || r.domains.some((d) => domains.includes(d));
    for (const rule of this.rules.filter((r) => (!r.operations || r.operations.includes(operation)) && named(r))) {
      apply(effect, rule, this.rng);
      if (rule.count !== undefined) rule.count -= 1;
    }
    this.rules = this.rules.filter((r) => r.count === undefined || r.count > 0);
    return effect;
  }
}

function apply(effect: FaultEffect, rule: FaultRule, rng: Rng): void {
  effect.latencyMs = Math.max(effect.latencyMs, rule.latencyMs ?? 0);
  effect.hang ||= rule.hang === true;
  effect.malformedJson ||= rule.malformedJson === true;
  effect.truncatedBody ||= rule.truncatedBody === true;
  effect.dataNull ||= rule.dataNull === true;
  effect.wrongTypes ||= rule.wrongTypes === true;
  effect.hugeArray = Math.max(effect.hugeArray, rule.hugeArray ?? 0);
  effect.duplicatePoints ||= rule.duplicatePoints === true;
  if (rule.shufflePoints && effect.shuffleSeed === undefined) effect.shuffleSeed = rng.int(0, 0xffffffff);
  effect.futurePoints = Math.max(effect.futurePoints, rule.futurePoints ?? 0);
  effect.negativeSeries ??= rule.negativeSeries;
  // The first rule that decides a status wins; later ones still use up their count.
  if (effect.status !== undefined) return;
  if (rule.unauthorized) effect.status = 401;
  else if (rule.forbidden) effect.status = 403;
  else if (rule.status5xx !== undefined) effect.status = rule.status5xx;
  else if (rule.errorRate !== undefined && rng.next() < rule.errorRate) effect.status = rng.pick(RANDOM_5XX);
  else if (rule.retryAfter !== undefined) effect.status = 429;
  if (effect.status !== undefined && rule.retryAfter !== undefined) effect.retryAfter = rule.retryAfter;
}

const BOOLEAN_KEYS = [
  'unauthorized', 'forbidden', 'malformedJson', 'truncatedBody', 'dataNull', 'hang', 'wrongTypes', 'duplicatePoints', 'shufflePoints',
] as const;
const KNOWN_KEYS = new Set<string>([...BOOLEAN_KEYS, 'latencyMs', 'errorRate', 'status5xx', 'hugeArray', 'futurePoints', 'negativeSeries', 'operations', 'count', 'retryAfter', 'domains']);
/** Bounds that keep one faulty answer within memory: 2,000,000 points are about 44 MB of JSON, past the client's default 32 MiB cap. */
export const MAX_HUGE_ARRAY = 2_000_000;
const MAX_FUTURE_POINTS = 10_000;

/** Validates a rule (also one parsed from admin JSON); unknown keys are refused so a typo cannot pass silently. */
function checkRule(raw: unknown, path: string): FaultRule {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new FaultSpecError(`${path} must be an object`);
  const r = raw as Record<string, unknown>;
  const unknown = Object.keys(r).filter((k) => !KNOWN_KEYS.has(k));
  if (unknown.length > 0) throw new FaultSpecError(`${path}: unknown fault keys ${unknown.join(', ')}`);
  const rule: FaultRule = {};
  for (const k of BOOLEAN_KEYS) {
    if (r[k] === undefined) continue;
    if (typeof r[k] !== 'boolean') throw new FaultSpecError(`${path}.${k} must be a boolean`);
    rule[k] = r[k];
  }
  const num = (k: string, ok: (v: number) => boolean, what: string): number | undefined => {
    const v = r[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !ok(v)) throw new FaultSpecError(`${path}.${k} must be ${what}`);
    return v;
  };
  const latencyMs = num('latencyMs', (v) => Number.isFinite(v) && v >= 0, 'a non-negative number');
  const errorRate = num('errorRate', (v) => v >= 0 && v <= 1, 'between 0 and 1');
  const status5xx = num('status5xx', (v) => Number.isInteger(v) && v >= 500 && v <= 599, 'an integer 500..599');
  const count = num('count', (v) => Number.isInteger(v) && v >= 1, 'a positive integer');
  const hugeArray = num('hugeArray', (v) => Number.isInteger(v) && v >= 1 && v <= MAX_HUGE_ARRAY, `an integer 1..${MAX_HUGE_ARRAY}`);
  const futurePoints = num('futurePoints', (v) => Number.isInteger(v) && v >= 1 && v <= MAX_FUTURE_POINTS, `an integer 1..${MAX_FUTURE_POINTS}`);
  if (latencyMs !== undefined) rule.latencyMs = latencyMs;
  if (errorRate !== undefined) rule.errorRate = errorRate;
  if (status5xx !== undefined) rule.status5xx = status5xx;
  if (count !== undefined) rule.count = count;
  if (hugeArray !== undefined) rule.hugeArray = hugeArray;
  if (futurePoints !== undefined) rule.futurePoints = futurePoints;
  const retryAfter = num('retryAfter', (v) => Number.isInteger(v) && v >= 0 && v <= 3600, 'whole seconds 0..3600');
  if (retryAfter !== undefined) rule.retryAfter = retryAfter;
  if (r.negativeSeries !== undefined) {
    if (typeof r.negativeSeries !== 'string' || r.negativeSeries === '') throw new FaultSpecError(`${path}.negativeSeries must be a series key such as requestCounter`);
    rule.negativeSeries = r.negativeSeries;
  }
  if (r.operations !== undefined) rule.operations = operations(r.operations, `${path}.operations`);
  if (r.domains !== undefined) {
    if (!Array.isArray(r.domains) || !r.domains.every((d): d is string => typeof d === 'string' && d !== '')) {
      throw new FaultSpecError(`${path}.domains must be an array of domain names`);
    }
    rule.domains = [...r.domains];
  }
  return rule;
}

function operations(v: unknown, path: string): OperationName[] {
  if (!Array.isArray(v)) throw new FaultSpecError(`${path} must be an array of operation names`);
  return v.map((name, i) => {
    if (typeof name !== 'string' || !isOperationName(name)) throw new FaultSpecError(`${path}[${i}] is not an operation name`);
    return name;
  });
}
