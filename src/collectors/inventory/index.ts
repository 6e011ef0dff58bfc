// The inventory collector: what the account holds and in which state —
// packages, layer-4 packages, domains, hosted certificates, cache
// refresh/preload records, live-acceleration orders and live-quality reports.
// Every family is a gauge replaced wholesale each cycle, so something removed
// upstream disappears from /metrics. A resource whose requests fail leaves its
// families out of the cycle's output (they keep their last values) and the
// other resources still publish. Families denied by the allow/deny patterns
// are never requested when a resource feeds nothing else.
import type { Sample, Collector, CollectContext, CollectOutput } from '../collector.js';
import { INVENTORY_FAMILIES } from './metrics.js';
import { asError, inventoryResources, type Resource, type ResourceResult } from './resources.js';
import type { ConvertIssue } from './sample-set.js';
import { ArgumentError } from '../../shared/errors.js';

export * from './metrics.js';

export interface InventoryOptions {
  /** Call getPackageDetails once per layer-4 package for ports used/total. */
  readonly details: boolean;
  /** Cache records created this long before the cycle, up to it, are summed (ms). */
  readonly cacheWindowMs: number;
  /** Rows per list request. Default 100. */
  readonly pageSize?: number;
  /** Pages read at most per list before a never-ending total is given up on. Default 1000. */
  readonly maxPages?: number;
}

const INVENTORY_DEFAULTS = { pageSize: 100, maxPages: 1000 } as const;

/** Issues logged per resource and cycle; the rest are only counted. */
const ISSUES_LOGGED = 5;

type Outcome = { readonly resource: Resource } & ({ readonly ok: true; readonly result: ResourceResult } | { readonly ok: false; readonly error: Error });

export function createInventoryCollector(options: InventoryOptions): Collector {
  const pageSize = options.pageSize ?? INVENTORY_DEFAULTS.pageSize;
  const maxPages = options.maxPages ?? INVENTORY_DEFAULTS.maxPages;
  positiveInteger('pageSize', pageSize);
  positiveInteger('maxPages', maxPages);
  if (!Number.isFinite(options.cacheWindowMs) || options.cacheWindowMs <= 0) {
    throw new ArgumentError(`inventory: cacheWindowMs must be a positive number of ms, got ${options.cacheWindowMs}`);
  }
  const resources = inventoryResources({ details: options.details, cacheWindowMs: options.cacheWindowMs, pageSize, maxPages });
  return {
    name: 'inventory',
    operations: [...new Set(resources.flatMap((r) => r.operations))],
    // In INVENTORY_FAMILIES order; without `details` the ports families are not produced.
    families: INVENTORY_FAMILIES.filter((f) => resources.some((r) => r.families.includes(f))),
    collect: (ctx) => collect(ctx, resources),
    requests: (targets) => ({ run: resources.reduce((n, r) => n + r.requests(targets), 0) }),
  };
}

async function collect(ctx: CollectContext, resources: readonly Resource[]): Promise<CollectOutput> {
  const active = resources.filter((r) => r.families.some((f) => ctx.enabled(f.name)));
  const outcomes = await Promise.all(active.map((resource) => run(ctx, resource)));
  const gauges = new Map<string, readonly Sample[]>();
  const errors: Error[] = [];
  for (const outcome of outcomes) {
    if (!outcome.ok) {
      errors.push(outcome.error);
      continue;
    }
    for (const [name, samples] of outcome.result.converted.families) if (ctx.enabled(name)) gauges.set(name, samples);
    errors.push(...outcome.result.errors);
  }
  // Nothing at all could be read: the cycle failed (the engine backs off and reports it).
  if (outcomes.length > 0 && outcomes.every((o) => !o.ok)) {
    throw errors.length === 1 && errors[0] ? errors[0] : new AggregateError(errors, 'inventory: every resource failed');
  }
  return { gauges, increments: [], watermarks: {}, errors };
}

async function run(ctx: CollectContext, resource: Resource): Promise<Outcome> {
  const log = ctx.log.child({ resource: resource.name });
  try {
    const result = await resource.collect(withLog(ctx, log));
    logIssues(log, result.converted.issues);
    for (const error of result.errors) log.debug({ err: error }, 'part of the resource failed; its families keep their last values');
    return { resource, ok: true, result };
  } catch (err) {
    log.debug({ err }, 'resource failed; its families keep their last values');
    return { resource, ok: false, error: asError(err) };
  }
}

/** The context with a resource-scoped logger (built field by field: ctx may be a class instance). */
function withLog(ctx: CollectContext, log: CollectContext['log']): CollectContext {
  return {
    client: ctx.client, now: ctx.now, signal: ctx.signal, tz: ctx.tz, log,
    targets: ctx.targets, watermarks: ctx.watermarks, enabled: (family) => ctx.enabled(family),
  };
}

function logIssues(log: CollectContext['log'], issues: readonly ConvertIssue[]): void {
  if (issues.length === 0) return;
  log.warn({ count: issues.length, issues: issues.slice(0, ISSUES_LOGGED) }, 'rows with values the document does not describe');
}

function positiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new ArgumentError(`inventory: ${name} must be a positive integer, got ${value}`);
}
