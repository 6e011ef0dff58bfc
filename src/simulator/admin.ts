// The simulator's own control endpoints (no authentication; they exist for
// tests, demos and soak runs on loopback):
//   GET    /__admin/state   clock, faults, request counts, seed and size
//   GET    /__admin/faults  the active fault rules
//   POST   /__admin/faults  replace the rules: a rule, an array of rules, or {rules: [...]}
//   DELETE /__admin/faults  clear every rule
//   POST   /__admin/clock   {set?: epoch ms | 'yyyy-MM-dd HH:mm:ss', advance?: ms, speed?: n} (applied in that order)
//   POST   /__admin/reset   rebuild the world, clear faults, counts and rate-limit windows (the clock and readings are kept)
//   GET    /__admin/readings  the current readings (every key; null where the default is "none")
//   POST   /__admin/readings  merge {key: value}; null puts a key back to its default
//   DELETE /__admin/readings  every reading back to its default
//   GET    /__admin/budget  the account's request budget (null: off)
//   POST   /__admin/budget  switch it on: {perSecond, retryAfterSeconds?, retryAfterForm?: 'seconds' | 'date'}
//   DELETE /__admin/budget  switch it off
//   POST   /__admin/domains {remove?: [names], restore?: [names]}: domains leave listDomains or come back
//                           (answers {removed: [names]}; unknown names are a 400; reset restores every one)
//   GET    /__admin/received  every request routed to an operation: {at (epoch ms), operation, refused, retryAfterMs?}
//   POST   /__admin/tokens  replace the accepted tokens: [{token, permissions?: '*' | [labels]}] or {tokens: [...]};
//                           answers {accepted: n}, never the tokens (a rotated credential: the old one answers 401)
// Answers use the platform envelope: {code: 200, msg: 'ok', data}.
import type { PlatformClock } from '../api/time.js';
import type { SimClock } from './clock.js';
import { FaultSpecError, type FaultRule, type Faults } from './faults.js';
import { checkReadings, ReadingError, readingsJson, type ReadingsState } from './readings.js';
import type { BudgetSettings, RequestBudget } from './budget.js';
import type { Incoming, Reply } from './server.js';
import { ArgumentError, EdgeError } from '../shared/errors.js';

interface AdminTarget {
  readonly clock: SimClock;
  readonly faults: Faults;
  readonly tz: PlatformClock;
  readonly readings: ReadingsState;
  readonly budget: RequestBudget;
  state(): Record<string, unknown>;
  reset(): void;
  /** Domains of the account by name, and those taken out of listDomains. */
  domains(): { readonly names: readonly string[]; readonly removed: Set<string> };
  /** Replaces the accepted tokens (checked; an ArgumentError when malformed); returns how many are accepted now. */
  setTokens(tokens: unknown): number;
}

class AdminError extends EdgeError {
  readonly code = 'EDGE_SIM_ADMIN';
}

const done = (data: unknown): Reply => ({ status: 200, body: { code: 200, msg: 'ok', data } });
const bad = (status: number, msg: string): Reply => ({ status, body: { code: status, msg } });

export function adminHandler(target: AdminTarget): (incoming: Incoming) => Reply {
  return (incoming) => {
    try {
      return route(target, incoming);
    } catch (err) {
      if (err instanceof AdminError || err instanceof FaultSpecError || err instanceof ReadingError || err instanceof ArgumentError) return bad(400, err.message);
      throw err;
    }
  };
}

function route(target: AdminTarget, { method, path, bodyText }: Incoming): Reply {
  const key = `${method} ${path.replace(/\/+$/, '')}`;
  switch (key) {
    case 'GET /__admin/state':
      return done(target.state());
    case 'GET /__admin/faults':
      return done(target.faults.list());
    case 'POST /__admin/faults':
      target.faults.set(faultRules(parse(bodyText)));
      return done(target.faults.list());
    case 'DELETE /__admin/faults':
      target.faults.clear();
      return done([]);
    case 'POST /__admin/clock':
      setClock(target, parse(bodyText));
      return done(target.clock.state());
    case 'POST /__admin/reset':
      target.reset();
      return done(target.state());
    case 'GET /__admin/readings':
      return done(readingsJson(target.readings.get()));
    case 'POST /__admin/readings':
      return done(readingsJson(target.readings.merge(checkReadings(parse(bodyText)))));
    case 'DELETE /__admin/readings':
      return done(readingsJson(target.readings.reset()));
    case 'GET /__admin/budget':
      return done(target.budget.get() ?? null);
    case 'POST /__admin/budget':
      target.budget.set(budgetSettings(parse(bodyText)));
      return done(target.budget.get());
    case 'DELETE /__admin/budget':
      target.budget.set(undefined);
      return done(null);
    case 'POST /__admin/domains':
      return done({ removed: setRemoved(target, parse(bodyText)) });
    case 'GET /__admin/received':
      return done(target.budget.received());
    case 'POST /__admin/tokens':
      return done({ accepted: target.setTokens(tokenList(parse(bodyText))) });
    default:
      return bad(404, `unknown admin endpoint ${key}`);
  }
}

function parse(text: string): unknown {
  try {
    return text.trim() === '' ? {} : (JSON.parse(text) as unknown);
  } catch {
    throw new AdminError('body is not valid JSON');
  }
}

function faultRules(body: unknown): readonly FaultRule[] {
  if (Array.isArray(body)) return body as FaultRule[];
  if (typeof body === 'object' && body !== null && 'rules' in body) {
    const rules = (body as { rules: unknown }).rules;
    if (!Array.isArray(rules)) throw new AdminError('rules must be an array');
    return rules as FaultRule[];
  }
  return [body as FaultRule];
}

/** The body as budget settings; RequestBudget.set checks the values (an ArgumentError, a 400). */
function budgetSettings(body: unknown): BudgetSettings {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AdminError('body must be an object {perSecond, retryAfterSeconds?, retryAfterForm?}');
  return body as BudgetSettings;
}

function tokenList(body: unknown): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'tokens' in body ? (body as { tokens: unknown }).tokens : body;
}

function setRemoved(target: AdminTarget, body: unknown): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AdminError('body must be an object {remove?, restore?}');
  const { names, removed } = target.domains();
  const list = (field: string): string[] => {
    const value = (body as Record<string, unknown>)[field] ?? [];
    if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) throw new AdminError(`${field} must be an array of domain names`);
    const unknown = value.filter((v) => !names.includes(v));
    if (unknown.length > 0) throw new AdminError(`unknown domain(s): ${unknown.join(', ')}`);
    return value;
  };
  const remove = list('remove');
  const restore = list('restore');
  for (const name of remove) removed.add(name);
  for (const name of restore) removed.delete(name);
  return [...removed].sort();
}

function setClock(target: AdminTarget, body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AdminError('body must be an object');
  const { set, advance, speed } = body as Record<string, unknown>;
  if (set !== undefined) {
    if (typeof set === 'number') target.clock.set(set);
    else if (typeof set === 'string') target.clock.set(parseTime(target.tz, set));
    else throw new AdminError('set must be epoch ms or yyyy-MM-dd HH:mm:ss');
  }
  if (advance !== undefined) {
    if (typeof advance !== 'number' || !Number.isFinite(advance)) throw new AdminError('advance must be a number of ms');
    target.clock.advance(advance);
  }
  if (speed !== undefined) {
    if (typeof speed !== 'number') throw new AdminError('speed must be a number');
    target.clock.setSpeed(speed);
  }
}

function parseTime(tz: PlatformClock, text: string): number {
  try {
    return tz.parseDateTime(text);
  } catch (err) {
    throw new AdminError(err instanceof Error ? err.message : String(err));
  }
}
