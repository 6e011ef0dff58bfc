// Operations 3 and 9-12: package options, layer-4 packages and their
// forwarding rules.
import { z } from 'zod';
import {
  envelope,
  int64,
  list,
  looseInt,
  looseNumber,
  looseText,
  nonEmpty,
  pageNumber,
  pagedList,
  searchFilter,
  withList,
} from './common.js';

/** Layer-4 package `activate` codes (see States), as the list filter sends them. */
const LAYER4_ACTIVATE_CODES = ['0', '-1', '1', '3', '4'] as const;
const LAYER4_FILTER_LABELS = ['oid', 'packageName'] as const;
const PROTOCOL_TYPES = ['tcp', 'udp'] as const;
const ON_OFF = ['on', 'off'] as const;

// ------------------------------------------------------------ 3. getPackages

/** A GET without parameters besides the Authorization header. */
export const getPackagesRequest = z.looseObject({});

export const getPackagesAnswer = withList(z.looseObject({ label: z.string(), value: looseText }));

// ----------------------------------------------------- 9. listLayer4Packages

export const listLayer4PackagesRequest = z.looseObject({
  filters: z.array(searchFilter(LAYER4_FILTER_LABELS)).optional(),
  pageNum: pageNumber,
  pageSize: pageNumber,
  searchHeader: z.looseObject({ activate: z.array(z.enum(LAYER4_ACTIVATE_CODES)) }).optional(),
  oid: z.string().optional(),
});

const layer4PackageRow = z.looseObject({
  ctime: looseInt,
  isTest: looseInt,
  oid: z.string(),
  packageName: z.string(),
  ruleCnt: looseInt,
  remark: z.string().nullish(),
  activate: looseInt,
  mday: z.string().nullish(),
  lastday: looseInt.nullish(),
  alias: z.string().nullish(),
  // Present in the sample only.
  cname: z.string().nullish(),
  bandwidth: looseNumber.nullish(),
});

export const listLayer4PackagesAnswer = pagedList(layer4PackageRow);

// ----------------------------------------------------- 10. getPackageDetails

/** oid becomes the `{oid}` path parameter; an empty one would address another route. */
export const getPackageDetailsRequest = z.looseObject({ oid: nonEmpty });

const layer4PackageDetails = z.looseObject({
  oid: z.string(),
  isTest: looseInt,
  alias: z.string().nullish(),
  name: z.string(),
  cname: z.string().nullish(),
  fdesc: z.string().nullish(),
  /** Instances as [address, identifier] pairs. */
  nodes: list(z.array(looseText)),
  ctime: looseInt,
  utime: looseInt,
  packages: list(z.looseObject({ name: z.string(), alias: z.string().nullish(), oid: z.string() })),
  activate: looseInt,
  mday: z.string().nullish(),
  consumptionPort: looseInt,
  totalPort: looseInt,
  // Only the sample value "off" is known, so the text is not narrowed.
  isParsing: z.string().nullish(),
});

export const getPackageDetailsAnswer = envelope.extend({ data: layer4PackageDetails.nullish() });

// ------------------------------------------------ 11-12. insertRule, updateRule

const layer4RuleFields = {
  hyPort: nonEmpty,
  listenPort: nonEmpty,
  node: nonEmpty,
  originAddress: nonEmpty,
  protocolType: z.enum(PROTOCOL_TYPES),
  proxyProtocol: z.enum(ON_OFF),
  types: z.enum(ON_OFF),
  // A documented sample sends "" to mean "no limit".
  limitConn: z.union([z.int32(), z.literal('')], { error: 'expected an int32 integer or ""' }).optional(),
  remark: z.string().optional(),
};

const layer4Rule = z.looseObject({ ...layer4RuleFields, ruleId: int64.optional() });

export const insertRuleRequest = z.looseObject({
  oid: nonEmpty,
  rules: z.array(layer4Rule).optional(),
});

/** The update body is one rule, not wrapped, and names the rule it replaces. */
export const updateRuleRequest = z.looseObject({ ...layer4RuleFields, ruleId: int64 });

export const insertRuleAnswer = envelope;
export const updateRuleAnswer = envelope;
