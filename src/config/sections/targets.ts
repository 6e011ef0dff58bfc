// `targets:` — which domains and packages the collectors ask about: found
// through the list operations (paged to the end) and refreshed periodically,
// or listed here; include/exclude regexes narrow either kind.
import { z } from 'zod';
import { DOMAIN_ACTIVE_CODES } from '../../api/schemas/domains.js';
import { duration } from '../duration.js';
import { integer } from '../fields.js';
import { nameRegexList } from '../patterns.js';

const names = (kind: string) =>
  z
    .array(z.string().min(1))
    .optional()
    .describe(`Fixed list of ${kind}; no discovery request is made when set (no default: discover).`);

const include = (kind: string) =>
  nameRegexList()
    .default([])
    .describe(`Keep only ${kind} matching at least one of these regexes (searched, not anchored; default [] = all).`);

const exclude = (kind: string) =>
  nameRegexList()
    .default([])
    .describe(`Drop ${kind} matching any of these regexes; wins over include (default []).`);

export const targetsSchema = z.strictObject({
  domains: z
    .strictObject({
      static: names('domain names'),
      include: include('domain names'),
      exclude: exclude('domain names'),
      states: z
        .array(z.enum(DOMAIN_ACTIVE_CODES))
        .min(1)
        .default([...DOMAIN_ACTIVE_CODES])
        .describe("listDomains searchHeader.isActive: '0' configuring, '1' active, '2' paused (default all three)."),
      page_size: integer().min(1).default(100).describe('Rows per listDomains page (default 100).'),
    })
    .prefault({})
    .describe('Domains, from listDomains.'),
  packages: z
    .strictObject({
      static: names('package ids'),
      include: include('package ids'),
      exclude: exclude('package ids'),
    })
    .prefault({})
    .describe('Layer-7 package ids (the `value` of getPackages, the `package` label).'),
  refresh: duration({ min: 10_000 })
    .prefault('10m')
    .describe(
      'How often discovered lists are refreshed, at least 10s; a failed refresh keeps the last good list and is retried ' +
        'after 30s, or after refresh if shorter (default 10m).',
    ),
  forget_after: duration({ min: 60_000 })
    .prefault('1h')
    .describe(
      'A discovered domain or package absent from the lists (or no longer this shard\'s) for this long, at least 1m, is ' +
        'forgotten: its counters and watermarks leave /metrics, remote-write and the state files; one that comes back ' +
        'counts again from 0 at first sight. Static lists are never forgotten. A WAF rule absent from this long of the ' +
        'deny events read leaves edge_waf_rule_info the same way (default 1h).',
    ),
});

export type TargetsConfig = z.output<typeof targetsSchema>;
