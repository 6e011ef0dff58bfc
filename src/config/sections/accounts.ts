// `account:` and `accounts:` — which platform accounts the daemon reads. One
// account by default, named by `account.name`; `accounts:` lists several,
// each its own upstream with its own targets and, optionally, its own
// collectors, waf_events and metrics. How an entry inherits from the top
// level is ../accounts.ts (the merge at load, and resolveAccounts).
import { z } from 'zod';
import { collectorsSchema } from './collectors.js';
import { metricsSchema } from './metrics.js';
import { targetsSchema } from './targets.js';
import { upstreamSchema } from './upstream.js';
import { wafEventsSchema } from './waf-events.js';

/** What an account's name may hold: it names a directory under state_dir and is the `account` label's value. */
const ACCOUNT_NAME_RE = /^[a-z0-9-]+$/;

/** The name of the one account of a config without `accounts:`. */
export const DEFAULT_ACCOUNT_NAME = 'default';

const accountName = () =>
  z.string().regex(ACCOUNT_NAME_RE, { error: 'expected lower-case letters, digits and -, like eu-shop' });

export const accountSchema = z.strictObject({
  name: accountName()
    .default(DEFAULT_ACCOUNT_NAME)
    .describe(
      `Name of the one account read when \`accounts:\` is not set: lower-case letters, digits and - (default \`${DEFAULT_ACCOUNT_NAME}\`). ` +
        'Set to another name, every series carries it as the `account` label (as under `accounts:`); left at the default, series carry no `account` label, as before accounts existed. ' +
        'Mutually exclusive with `accounts:`, which names each account itself.',
    ),
});

const entrySchema = z.strictObject({
  name: accountName().describe('The account\'s name, unique in the list: lower-case letters, digits and -. Its state is in `<state_dir>/accounts/<name>/`.'),
  upstream: upstreamSchema.describe(
    'The account\'s upstream, the same keys as the top-level `upstream`, merged over it: api_url and a token (or token_file) are the ' +
      'account\'s own and required; the rest (timeout, retry, proxy, TLS, rate_limit, ...) defaults to the top-level value.',
  ),
  targets: targetsSchema.optional().describe('The account\'s targets, merged over the top-level `targets` (default: those).'),
  collectors: collectorsSchema.optional().describe('Overrides of the top-level `collectors`, merged over it key by key (default: none).'),
  waf_events: wafEventsSchema.optional().describe('Overrides of the top-level `waf_events`, merged over it key by key (default: none).'),
  metrics: metricsSchema.optional().describe('Overrides of the top-level `metrics`, merged over it key by key (default: none).'),
});

export const accountsSchema = z
  .array(entrySchema)
  .min(1, { error: 'list at least one account, or leave accounts: out to read the top-level upstream' })
  .superRefine((entries, ctx) => {
    const first = new Map<string, number>();
    entries.forEach((entry, i) => {
      const earlier = first.get(entry.name);
      if (earlier === undefined) first.set(entry.name, i);
      else ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `accounts[${i}].name repeats accounts[${earlier}].name: names must be unique` });
    });
  });

export const ACCOUNTS_DESCRIPTION =
  'Several accounts read by one daemon (default: one account, the top-level `upstream`, named by `account.name`). Each entry is ' +
  'an account with its own upstream and targets and, optionally, its own collectors, waf_events and metrics. What an entry does ' +
  'not set comes from the top level: the entry\'s keys are merged over the top-level section\'s, mapping by mapping, so ' +
  '`collectors: { topn: { enabled: false } }` changes that key alone; a list (targets.domains.static, a regex list) replaces ' +
  'the top-level list whole; an entry\'s proxy_url or proxy_url_file replaces both inherited ones. The top-level `upstream` is then ' +
  'the shared default (timeout, retry, proxy, TLS, ...) and may not set api_url, login_url, token or token_file, which each account ' +
  'sets itself; EDGE_API_URL, EDGE_LOGIN_URL and EDGE_API_TOKEN are refused too (write `${VAR}` in each entry instead, one variable ' +
  'per account under another name). Each account ' +
  'keeps its state in `<state_dir>/accounts/<name>/`.';

export type AccountEntry = z.output<typeof entrySchema>;
