// Packages: the layer-7 options of getPackages, the layer-4 list rows and
// the layer-4 details. Pure: parsed answers in, gauge samples out.
import type { GetPackageDetailsAnswer, GetPackagesAnswer, ListLayer4PackagesAnswer, PlatformClock } from '../../api/index.js';
import {
  L4_DETAIL_FAMILIES,
  L4_LIST_FAMILIES,
  L4_PACKAGE_TIME_LEFT,
  L4_PACKAGE_EXPIRY,
  L4_PACKAGE_INFO,
  L4_PACKAGE_PORTS,
  L4_PACKAGE_PORTS_USED,
  L4_PACKAGE_RULES,
  L4_PACKAGE_STATE,
  PACKAGE_FAMILIES,
  PACKAGE_INFO,
} from './metrics.js';
import { SampleSet, type Converted } from './sample-set.js';

export type PackageOption = GetPackagesAnswer['data'][number];
export type Layer4Row = ListLayer4PackagesAnswer['rows'][number];
export type Layer4Details = NonNullable<GetPackageDetailsAnswer['data']>;

/** The details answer for one listed package; null when the upstream sent `data: null`. */
export interface Layer4DetailsOf {
  /** The oid the package was listed (and requested) under, so every layer-4 family shares one key. */
  readonly oid: string;
  readonly details: Layer4Details | null;
}

/** `offered`: getPackages' choices (the document calls them options; here `options` is always a configuration). */
export function convertPackages(offered: readonly PackageOption[]): Converted {
  const out = new SampleSet(PACKAGE_FAMILIES);
  for (const pkg of out.unique(offered, (x) => x.value, PACKAGE_INFO.name, 'value')) {
    out.addGauge(PACKAGE_INFO, { package: pkg.value, name: pkg.label }, 1);
  }
  return out.build();
}

export function convertLayer4List(rows: readonly Layer4Row[], tz: PlatformClock): Converted {
  const out = new SampleSet(L4_LIST_FAMILIES);
  for (const row of out.unique(rows, (r) => r.oid, L4_PACKAGE_INFO.name, 'oid')) {
    const oid = { oid: row.oid };
    // isTest: 1 official, 0 test; an undocumented value is not claimed to be official.
    const official = row.isTest === 1 ? 'true' : 'false';
    if (row.isTest !== 0 && row.isTest !== 1) {
      out.issue({ family: L4_PACKAGE_INFO.name, key: row.oid, field: 'isTest', value: row.isTest, reason: 'undocumented code, exported as official="false"' });
    }
    out.addGauge(L4_PACKAGE_INFO, { ...oid, name: row.packageName, alias: row.alias ?? '', official }, 1);
    out.stateSet(L4_PACKAGE_STATE, oid, row.activate, row.oid);
    out.timestamp(L4_PACKAGE_EXPIRY, oid, row.mday, row.oid, tz);
    if (row.lastday !== null && row.lastday !== undefined) out.addGauge(L4_PACKAGE_TIME_LEFT, oid, row.lastday * 86_400);
    out.addGauge(L4_PACKAGE_RULES, oid, row.ruleCnt);
  }
  return out.build();
}

export function convertLayer4Details(items: readonly Layer4DetailsOf[]): Converted {
  const out = new SampleSet(L4_DETAIL_FAMILIES);
  for (const { oid, details } of out.unique(items, (i) => i.oid, L4_PACKAGE_PORTS.name, 'oid')) {
    if (details === null) {
      out.issue({ family: L4_PACKAGE_PORTS.name, key: oid, field: 'data', value: null, reason: 'no details returned' });
      continue;
    }
    out.addGauge(L4_PACKAGE_PORTS_USED, { oid }, details.consumptionPort);
    out.addGauge(L4_PACKAGE_PORTS, { oid }, details.totalPort);
  }
  return out.build();
}
