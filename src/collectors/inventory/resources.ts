// The inventory as a table of resources: each names the families it feeds and
// the operations it calls, fetches and converts. The collector runs them with
// one loop; a resource that fails costs only its own families.
//
// The inventory describes the whole account: ctx.targets (include/exclude and
// the `states` filter of discovery) narrow which domains and packages the
// statistics collectors ask about, not what the account holds. Filtering here
// would hide exactly the paused or excluded domains a state set exists to show,
// and would blank the domain families while discovery is still failing.
import type { OperationName } from '../../api/index.js';
import type { CollectContext, MetricDef, TargetCounts } from '../collector.js';
import { convertCacheRecords } from './convert-cache.js';
import { convertCertificates } from './convert-certificates.js';
import { convertDomains } from './convert-domains.js';
import { convertLiveOrders, convertLiveQuality } from './convert-live.js';
import { convertLayer4Details, convertLayer4List, convertPackages } from './convert-packages.js';
import {
  fetchCacheRecords,
  fetchCertificates,
  fetchDomains,
  fetchLayer4Details,
  fetchLayer4Packages,
  fetchLiveOrders,
  fetchLiveQualityReports,
  fetchPackageOptions,
  type Paging,
} from './fetch.js';
import {
  CACHE_FAMILIES,
  CACHE_TYPES,
  CERTIFICATE_FAMILIES,
  DOMAIN_FAMILIES,
  L4_DETAIL_FAMILIES,
  L4_LIST_FAMILIES,
  LIVE_ORDER_FAMILIES,
  LIVE_QUALITY_FAMILIES,
  PACKAGE_FAMILIES,
} from './metrics.js';
import { merge, type Converted } from './sample-set.js';
import { InternalError } from '../../shared/errors.js';

interface ResourceSettings extends Paging {
  readonly details: boolean;
  readonly cacheWindowMs: number;
}

export interface ResourceResult {
  readonly converted: Converted;
  /** Failures that cost some of the resource's families but not all (layer-4 details). */
  readonly errors: readonly Error[];
}

export interface Resource {
  readonly name: string;
  /** Every family the resource can produce; its requests are skipped when all are denied. */
  readonly families: readonly MetricDef[];
  readonly operations: readonly OperationName[];
  /** Requests one collect makes (every list on as many pages as `targets` fill, others on one), for the request estimate. */
  requests(targets: TargetCounts): number;
  /** Throws when the resource's families cannot be produced at all this cycle. */
  collect(ctx: CollectContext): Promise<ResourceResult>;
}

const complete = (converted: Converted): ResourceResult => ({ converted, errors: [] });

export function inventoryResources(settings: ResourceSettings): Resource[] {
  return [
    {
      name: 'packages', families: PACKAGE_FAMILIES, operations: ['getPackages'], requests: () => 1,
      collect: async (ctx) => complete(convertPackages(await fetchPackageOptions(ctx))),
    },
    layer4(settings),
    {
      name: 'domains', families: DOMAIN_FAMILIES, operations: ['listDomains'], requests: ({ domains }) => pagesFor(domains, settings.pageSize),
      collect: async (ctx) => complete(convertDomains(await fetchDomains(ctx, settings), ctx.tz)),
    },
    {
      name: 'certificates', families: CERTIFICATE_FAMILIES, operations: ['describeHosting'], requests: () => 1,
      collect: async (ctx) => complete(convertCertificates(await fetchCertificates(ctx, settings), ctx.tz)),
    },
    {
      name: 'cache', families: CACHE_FAMILIES, operations: ['getCacheRecordList'], requests: () => CACHE_TYPES.length,
      collect: async (ctx) => complete(convertCacheRecords(await fetchCacheRecords(ctx, settings, settings.cacheWindowMs))),
    },
    {
      name: 'live-orders', families: LIVE_ORDER_FAMILIES, operations: ['describeHostAcceleratePackOrder'], requests: () => 1,
      collect: async (ctx) => complete(convertLiveOrders(await fetchLiveOrders(ctx, settings), ctx.tz)),
    },
    {
      name: 'live-quality', families: LIVE_QUALITY_FAMILIES, operations: ['describeVQUserData'], requests: () => 1,
      collect: async (ctx) => complete(convertLiveQuality(await fetchLiveQualityReports(ctx, settings), ctx.tz)),
    },
  ];
}

/**
 * The list feeds five families; the details (one request per package, only
 * with `details: true` and when a ports family is allowed) feed two more. A
 * details failure keeps the list families and costs only the ports families.
 */
function layer4(settings: ResourceSettings): Resource {
  const families = settings.details ? [...L4_LIST_FAMILIES, ...L4_DETAIL_FAMILIES] : [...L4_LIST_FAMILIES];
  return {
    name: 'layer4', families,
    operations: settings.details ? ['listLayer4Packages', 'getPackageDetails'] : ['listLayer4Packages'],
    // The list's first page; with details, one more per layer-4 package: at most one per package getPackages lists (it lists layer-4 ones too).
    requests: ({ packages }) => 1 + (settings.details ? packages : 0),
    async collect(ctx) {
      const rows = await fetchLayer4Packages(ctx, settings);
      const list = convertLayer4List(rows, ctx.tz);
      if (!settings.details || !L4_DETAIL_FAMILIES.some((f) => ctx.enabled(f.name))) return complete(list);
      try {
        // The list's own oids, deduplicated the way the list conversion does.
        const oids = [...new Set(rows.map((r) => r.oid))];
        return complete(merge(list, convertLayer4Details(await fetchLayer4Details(ctx, oids))));
      } catch (err) {
        return { converted: list, errors: [asError(err)] };
      }
    },
  };
}

export function asError(err: unknown): Error {
  return err instanceof Error ? err : new InternalError(String(err), { cause: err });
}

/** Pages a list of `rows` takes, at least one (readAllPages asks for the first even when it is empty). */
function pagesFor(rows: number, pageSize: number): number {
  return Math.max(1, Math.ceil(rows / pageSize));
}
