// Turns an HTTP request into an operation call: route (404/405), count,
// the account's request budget (429 with Retry-After, when switched on), faults, authentication (401), permission (403), rate limit (429), JSON body
// (400), handler. Statuses the document does not show are chosen here:
// 405 for a wrong method, 429 {code:429,msg} over the rate limit, 400 for a
// body that is not JSON, 501 for an operation without a handler.
// The clockOffsetMs reading shifts the `now` handlers answer at; the rate
// limit keeps the simulator's own clock (its window is documented on it).
import type { OperationName, OperationSpec } from '../api/operations.js';
import type { SimClock } from './clock.js';
import type { FaultEffect, Faults } from './faults.js';
import { mangleBody, payloadKey, withoutZeroPoints } from './mangle.js';
import type { RateLimiter } from './ratelimit.js';
import type { RequestBudget } from './budget.js';
import type { PathForm, Readings } from './readings.js';
import { compileRoutes, matchRoute } from './routes.js';
import type { App, Incoming, ReplyScript, Reply } from './server.js';
import type { HandlerTable, SimResponse } from './types.js';
import { BadRequest } from './handlers/common.js';
import { ArgumentError } from '../shared/errors.js';

export interface SimToken {
  readonly token: string;
  /** '*' for every permission, else the permission labels held (e.g. 'statistics:access:query'). */
  readonly permissions: '*' | readonly string[];
}

interface RouterDeps {
  readonly clock: SimClock;
  readonly faults: Faults;
  readonly limiter: RateLimiter;
  readonly budget: RequestBudget;
  /** Read per request: the accepted tokens change at run time (a rotated credential). */
  readonly tokens: () => readonly SimToken[];
  readonly counts: Map<OperationName, number>;
  /** Read per request: a reset swaps the handlers. */
  readonly handlers: () => HandlerTable;
  /** Requests under /__admin/ go here. */
  readonly admin: (incoming: Incoming) => Reply;
  /** Read per request: the readings change at run time. */
  readonly readings: () => Readings;
}

/** `value` as a list of accepted tokens; an ArgumentError names what is wrong. An empty list is allowed: every request is then answered 401. */
export function checkTokens(value: unknown): SimToken[] {
  if (!Array.isArray(value)) throw new ArgumentError('tokens must be an array of {token, permissions}');
  return value.map((entry: unknown, i) => {
    if (typeof entry !== 'object' || entry === null) throw new ArgumentError(`tokens[${i}] must be an object {token, permissions}`);
    const { token, permissions = '*' } = entry as Record<string, unknown>;
    if (typeof token !== 'string' || token.trim() === '' || token !== token.trim()) {
      throw new ArgumentError(`tokens[${i}].token must be a non-empty string without surrounding blanks`);
    }
    if (permissions === '*') return { token, permissions };
    if (!Array.isArray(permissions) || !permissions.every((p): p is string => typeof p === 'string')) {
      throw new ArgumentError(`tokens[${i}].permissions must be '*' or an array of permission labels`);
    }
    return { token, permissions: [...permissions] };
  });
}

const MSG_UNAUTHORIZED = '认证失败，无法访问系统资源';
const MSG_FORBIDDEN = '没有权限，请联系管理员授权';
const MSG_RATE_LIMITED = '请求过于频繁,每个用户每秒最多 10 次';
const MSG_BUDGET = '请求过于频繁,请稍后再试';

const envelope = (status: number, msg: string): Reply => ({ status, body: { code: status, msg } });
const now = (reply: Reply): ReplyScript => ({ delayMs: 0, hang: false, respond: () => reply });

/** What a Spring Boot application answers for a path nothing handles: its own error body, no envelope. */
function gatewayNotFound(deps: RouterDeps, path: string): Reply {
  return { status: 404, body: { timestamp: new Date(deps.clock.now()).toISOString(), status: 404, error: 'Not Found', path } };
}

export function createRouter(deps: RouterDeps): App {
  const routes: Readonly<Record<PathForm, ReturnType<typeof compileRoutes>>> = {
    both: compileRoutes('both'), prefixed: compileRoutes('prefixed'), bare: compileRoutes('bare'),
  };
  return (incoming) => {
    if (incoming.path.startsWith('/__admin/')) return now(deps.admin(incoming));
    const match = matchRoute(routes[deps.readings().pathForm], incoming.method, incoming.path);
    if (match.kind === 'none') return now(deps.readings().gatewayNotFound ? gatewayNotFound(deps, incoming.path) : envelope(404, `Not Found: ${incoming.path}`));
    if (match.kind === 'badPath') return now(envelope(400, 'malformed path parameter'));
    if (match.kind === 'wrongMethod') {
      return now({ ...envelope(405, `请求方法 '${incoming.method}' 不支持`), headers: { allow: match.allow } });
    }
    const { spec, pathParams } = match;
    deps.counts.set(spec.name, (deps.counts.get(spec.name) ?? 0) + 1);
    // A gateway in front of the platform refuses before anything else is looked at.
    // The body read as JSON once, when first needed: after the budget has timed the arrival.
    let parsed: { readonly value: unknown } | undefined;
    const body = (): unknown => (parsed ??= { value: jsonOf(incoming.bodyText) }).value;
    const refusal = deps.budget.take(spec.name, spec.name === 'describeLogV2' ? () => wafQueryDetail(body()) : undefined);
    if (refusal) return now({ ...envelope(429, MSG_BUDGET), headers: { 'retry-after': refusal.retryAfter } });
    const effect = deps.faults.take(spec.name, namedDomains(body()));
    return {
      delayMs: effect.latencyMs,
      hang: effect.hang,
      // Future points lie after both clocks, so neither reading of "now" can count one.
      respond: () => shape(readingShape(deps, serve(deps, spec, pathParams, incoming, effect)), effect, Math.max(deps.clock.now(), upstreamNow(deps))),
    };
  };
}

function serve(deps: RouterDeps, spec: OperationSpec, pathParams: Record<string, string>, incoming: Incoming, effect: FaultEffect): Reply {
  if (effect.status !== undefined) {
    const reply = envelope(effect.status, faultMessage(effect.status));
    return effect.retryAfter === undefined ? reply : { ...reply, headers: { 'retry-after': String(effect.retryAfter) } };
  }
  const token = tokenOf(incoming.authorization, spec);
  const holder = token === undefined ? undefined : deps.tokens().find((t) => t.token === token);
  if (!holder || token === undefined) return envelope(401, MSG_UNAUTHORIZED);
  if (spec.permission && holder.permissions !== '*' && !holder.permissions.includes(spec.permission)) return envelope(403, MSG_FORBIDDEN);
  const at = deps.clock.now();
  if (spec.rateLimited && !deps.limiter.allow(token, at)) return envelope(429, MSG_RATE_LIMITED);
  const body = parseBody(spec, incoming.bodyText);
  if (body instanceof Error) return envelope(400, `请求体不是合法的 JSON: ${body.message}`);
  const handler = deps.handlers()[spec.name];
  if (!handler) return envelope(501, `simulator has no handler for ${spec.name}`);
  const res: SimResponse = handler({ operation: spec.name, body, pathParams, token, now: at - deps.readings().clockOffsetMs });
  return { status: res.status, body: res.body };
}

function upstreamNow(deps: RouterDeps): number {
  return deps.clock.now() - deps.readings().clockOffsetMs;
}

/**
 * `Bearer <token>` works everywhere; the bare token is accepted too except on
 * the WAF log query, which the document says sends Bearer.
 */
function tokenOf(header: string | undefined, spec: OperationSpec): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S.*)$/i.exec(header.trim());
  if (m) return m[1]?.trim();
  return spec.name === 'describeLogV2' ? undefined : header.trim();
}

function parseBody(spec: OperationSpec, text: string): unknown {
  if (spec.method === 'GET') return {};
  if (text.trim() === '') return new BadRequest('empty body');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    return err instanceof Error ? err : new BadRequest(String(err));
  }
}

function faultMessage(status: number): string {
  if (status === 401) return MSG_UNAUTHORIZED;
  if (status === 403) return MSG_FORBIDDEN;
  if (status === 429) return MSG_BUDGET;
  return `simulated upstream failure (HTTP ${status})`;
}

/** The readings that rewrite an answer's shape rather than its data. */
function readingShape(deps: RouterDeps, reply: Reply): Reply {
  return deps.readings().omitZeroBuckets ? { ...reply, body: withoutZeroPoints(reply.body) } : reply;
}

/** Applies the body faults to whatever answer was produced: shape faults on the payload first, then the ones that break the bytes. */
function shape(reply: Reply, effect: FaultEffect, now: number): Reply {
  let out: Reply = { ...reply, body: mangleBody(reply.body, { ...effect, now }) };
  if (effect.dataNull && isObject(out.body)) {
    const key = payloadKey(out.body);
    if (key) out = { ...out, body: { ...out.body, [key]: null } };
  }
  if (effect.malformedJson) {
    const text = JSON.stringify(out.body ?? null);
    out = { ...out, raw: `${text.slice(0, Math.max(1, text.length - 1))},<<not json>>` };
  }
  if (effect.truncatedBody) out = { ...out, truncated: true };
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A request body as JSON; undefined when empty or not JSON. */
function jsonOf(bodyText: string): unknown {
  if (bodyText === '') return undefined;
  try {
    return JSON.parse(bodyText);
  } catch {
    return undefined;
  }
}

/** What a WAF log query asked, for the request log: its first action and range (tests prove from it that nothing is read in a loop). */
function wafQueryDetail(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const { action: actions, params } = body as { action?: unknown; params?: { beginTime?: unknown; endTime?: unknown } };
  const action = Array.isArray(actions) && isObject(actions[0]) ? actions[0] : undefined;
  const range = `${String(params?.beginTime)}..${String(params?.endTime)}`;
  return action?.metricName === 'logs' ? `logs ${range} page ${String(action.pageNo ?? 1)}` : `${String(action?.metricName)} ${range}`;
}

/** The domains a request's JSON body names (`domains` or `domain`), for faults limited to some domains; none when it is not JSON. */
function namedDomains(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const { domains, domain } = body as { domains?: unknown; domain?: unknown };
  const list = Array.isArray(domains) ? domains : [domain];
  return list.filter((d): d is string => typeof d === 'string');
}
