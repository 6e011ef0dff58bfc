// `--account NAME`, as `doctor` and `call` read it: which of the config's
// accounts a command acts on.
import { resolveAccounts, type Config, type ResolvedAccount } from '../config/index.js';
import { UsageError } from './args.js';

/** Every account without `name`; else the one it names, an unknown name being a usage error that lists those there are. */
export function pickAccounts(config: Config, name: string | undefined): ResolvedAccount[] {
  const all = resolveAccounts(config);
  if (name === undefined) return all;
  const picked = all.filter((a) => a.name === name);
  if (picked.length === 0) throw new UsageError(`--account ${name}: no such account in the config (it has ${all.map((a) => a.name).join(', ')})`);
  return picked;
}
