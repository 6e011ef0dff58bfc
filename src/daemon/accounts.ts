// The accounts one daemon serves, as it runs them: each account's parts
// (wiring/index.ts: its client, budget, targets, jobs, engine, ledger and
// histories) over its own state store, with its own families and
// self-metrics, which outlive a rebuild of its parts so a scrape during a
// reload still finds its counters; and what joins them for the parts every
// account shares (the exposition's view, the push pipes' histories).
import type { Config, ResolvedAccount } from '../config/index.js';
import type { AccountsView } from '../exporters/prometheus/index.js';
import type { Logger } from '../log/logger.js';
import type { Clock } from '../shared/clock.js';
import type { StateStore } from '../state/index.js';
import { fingerprint, type Fingerprint } from './reload-changes.js';
import { openStore, type HeldDir } from './state-dir.js';
import type { LocalUpstream } from './wiring/upstream.js';
import { buildExports, wireAccount, type AccountParts, type Exports } from './wiring/index.js';
import { OutboundNotices } from './wiring/network.js';
import type { Pipes } from './wiring/pipes.js';
import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import { InternalError } from '../shared/errors.js';

/** One account as the daemon runs it. */
export interface Account {
  readonly name: string;
  /** The account's whole config in force (config/accounts.ts). */
  readonly config: Config;
  /** Its files as they were when it was applied: what a reload compares against. */
  readonly fingerprint: Fingerprint;
  readonly exports: Exports;
  /** Its client's throttling and its OTLP log sink's failures, for its status section. */
  readonly notices: OutboundNotices;
  readonly parts: AccountParts;
}

/** What one config runs: every account, in the config's order, and the pipes they share. */
export interface Components {
  readonly accounts: readonly Account[];
  readonly pipes: Pipes;
}

interface AccountsOptions {
  readonly logger: Logger;
  readonly version: string;
  readonly clock?: Clock;
  readonly dispatcher?: Dispatcher;
  readonly lookup?: LookupFunction;
  /** Accounts are named: their series, log lines and OTLP records carry `account`. */
  readonly labelled: boolean;
  readonly view: AccountsView;
}

/** What the daemon holds that accounts are built over: the state directory and the bundled simulator (state.ts's Held). */
interface Holding {
  readonly dir?: HeldDir;
  readonly local?: LocalUpstream;
}

export class Accounts {
  /** Per account name, kept across rebuilds of its parts. */
  private readonly exports = new Map<string, Exports>();
  private readonly notices = new Map<string, OutboundNotices>();
  private readonly stores = new Map<string, StateStore>();

  constructor(private readonly options: AccountsOptions) {}

  /** Builds one account's parts (not started) over its store, feeding the pipes' histories. */
  async build(account: ResolvedAccount, pipes: Pipes, held: Holding): Promise<Account> {
    const { config, name } = account;
    const { options } = this;
    if (!held.dir) throw new InternalError('the state directory is not held');
    const logger = options.labelled ? options.logger.child({ account: name }) : options.logger;
    const exports = this.exportsOf(name, config);
    const notices = this.noticesOf(name);
    const parts = await wireAccount({
      account: { name, config, labelled: options.labelled },
      logger, version: options.version, exports, outbound: notices, histories: pipes.histories,
      store: await this.storeOf(name, config, held, logger),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      ...(options.lookup ? { lookup: options.lookup } : {}),
      ...(held.local && config.upstream.api_url === undefined ? { local: held.local } : {}),
    });
    return { name, config, fingerprint: fingerprint(config), exports, notices, parts };
  }

  /** Makes `accounts` the ones served and pushed; the exports of any other account go (a reload removed it). */
  publish(accounts: readonly Account[], pipes: Pipes): void {
    const names = new Set(accounts.map((a) => a.name));
    // Stores stay: a removed account's last push may still settle into its directory, and one listed again reuses its store.
    for (const map of [this.exports, this.notices]) {
      for (const name of [...map.keys()]) if (!names.has(name)) map.delete(name);
    }
    this.options.view.set(accounts.map((a) => ({ name: a.name, families: a.exports.families, self: a.exports.self })));
    pipes.join(new Map(accounts.map((a) => [a.name, a.parts.histories])));
  }

  /** The account's self-metrics (made with its exports if it has none yet). */
  selfOf(name: string, config: Config): Exports['self'] {
    return this.exportsOf(name, config).self;
  }

  private exportsOf(name: string, config: Config): Exports {
    let exports = this.exports.get(name);
    if (exports === undefined) this.exports.set(name, (exports = buildExports(config, this.options.version, this.options.clock, false)));
    return exports;
  }

  private noticesOf(name: string): OutboundNotices {
    let notices = this.notices.get(name);
    if (notices === undefined) this.notices.set(name, (notices = new OutboundNotices()));
    return notices;
  }

  /**
   * The account's store: the daemon's own without `accounts:` (its state is
   * where earlier versions wrote it), else one of its own in the account's
   * subdirectory, under the daemon's one lock. One per directory for the
   * daemon's life, so a save of an old engine and one of its rebuild's never overlap.
   */
  private async storeOf(name: string, config: Config, held: Holding, logger: Logger): Promise<StateStore> {
    if (held.dir === undefined) throw new InternalError('the state directory is not held');
    if (config.state_dir === held.dir.store.dir) return held.dir.store;
    let store = this.stores.get(name);
    if (store === undefined) {
      const self = this.exportsOf(name, config).self;
      store = await openStore(config.state_dir, held.dir.lock, logger.child({ component: 'state' }), (file) => self.recordStateSaveFailure(file));
      this.stores.set(name, store);
    }
    return store;
  }
}
