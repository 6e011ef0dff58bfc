// What the accounts' view (src/exporters/prometheus/accounts.ts) costs a
// scrape, in one process and one run: the same 100k series of the access
// collector's families served three ways, in turn each round:
// - `store`: an Exposition over one FamilyStore and its SelfMetrics, as the
//   daemon served them before accounts existed (and as bench/scrape.ts
//   still measures the exposition itself);
// - `one account`: through the AccountsView of one unnamed account, what the
//   daemon serves for a config without `accounts:` now;
// - `10 accounts`: ten named accounts of 10k series each through the view,
//   each series with `account` added.
// Per way: the cold render (the first scrape after a publish that changed
// every family of one account: in `10 accounts`, one account's cycle, so
// the joined families are made again), plain and gzip, and a warm scrape of
// unchanged data, as medians of wall time and of this process' CPU.
//   npm run bench -- accounts-scrape [--series=N] [--rounds=N]
import { parseArgs } from 'node:util';
import { AccountsView, Exposition, FamilyStore, SelfMetrics, type ExpositionFormat } from '../src/exporters/prometheus/index.js';
import { publishCycle, publishSeries, type Published } from './lib/series.js';
import { fmtMs, median, since, table } from './lib/stats.js';

const FORMAT: ExpositionFormat = 'openmetrics';

interface Way {
  readonly name: string;
  readonly exposition: Exposition;
  /** The store a cycle is published into (one account's). */
  readonly changing: Published;
  readonly series: number;
  cycle: number;
}

function store(series: number): Way {
  const published = publishSeries(series);
  const self = new SelfMetrics({ families: published.store, version: 'bench', processMetrics: false });
  return { name: 'store', exposition: new Exposition({ families: published.store, self }), changing: published, series: published.series, cycle: 1 };
}

function viewOf(accounts: readonly { name: string; published: Published }[], labelled: boolean, name: string): Way {
  const daemon = new SelfMetrics({ families: new FamilyStore(), version: 'bench', processMetrics: false });
  const view = new AccountsView(daemon, labelled);
  view.set(accounts.map((a) => ({ name: a.name, families: a.published.store, self: new SelfMetrics({ families: a.published.store, version: 'bench', processMetrics: false }) })));
  const [first] = accounts;
  if (!first) throw new Error('no account');
  const series = accounts.reduce((n, a) => n + a.published.series, 0);
  return { name, exposition: new Exposition({ families: view, self: view }), changing: first.published, series, cycle: 1 };
}

async function timed(run: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const used = process.cpuUsage();
  const start = performance.now();
  await run();
  const wall = since(start);
  const { user, system } = process.cpuUsage(used);
  return { wall, cpu: (user + system) / 1000 };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { series: { type: 'string' }, rounds: { type: 'string' } } });
  const total = Number(values.series ?? '100000');
  const rounds = Number(values.rounds ?? '9');
  const ways: Way[] = [
    store(total),
    viewOf([{ name: 'default', published: publishSeries(total) }], false, 'one account'),
    viewOf(Array.from({ length: 10 }, (_, i) => ({ name: `account-${i}`, published: publishSeries(total / 10) })), true, '10 accounts'),
  ];
  const keys = ['coldPlain', 'coldGzip', 'warmPlain', 'warmGzip'] as const;
  const results = new Map(ways.map((w) => [w.name, Object.fromEntries(keys.map((k) => [k, { wall: [] as number[], cpu: [] as number[] }]))]));
  for (const way of ways) {
    // Warm-up: the first render of each way fills its caches and the JIT.
    await way.exposition.renderGzip(FORMAT);
  }
  for (let round = 0; round < rounds; round++) {
    // Each round runs every way, so background load falls on all alike.
    for (const way of ways) {
      const r = results.get(way.name);
      if (!r) throw new Error(way.name);
      const record = (key: (typeof keys)[number], t: { wall: number; cpu: number }): void => {
        r[key]?.wall.push(t.wall);
        r[key]?.cpu.push(t.cpu);
      };
      publishCycle(way.changing, way.cycle++);
      record('coldPlain', await timed(async () => (await way.exposition.render(FORMAT)).body.length));
      publishCycle(way.changing, way.cycle++);
      record('coldGzip', await timed(async () => (await way.exposition.renderGzip(FORMAT)).body.length));
      record('warmPlain', await timed(async () => (await way.exposition.render(FORMAT)).body.length));
      record('warmGzip', await timed(async () => (await way.exposition.renderGzip(FORMAT)).body.length));
    }
  }
  const rows = ways.map((way) => {
    const r = results.get(way.name);
    const cell = (key: (typeof keys)[number]): string => `${fmtMs(median(r?.[key]?.wall ?? []))} (${fmtMs(median(r?.[key]?.cpu ?? []))} CPU)`;
    return [way.name, way.series, cell('coldPlain'), cell('coldGzip'), cell('warmPlain'), cell('warmGzip')];
  });
  process.stdout.write(`## Accounts: the scrape through the accounts' view\n\n${rounds} rounds, medians; node ${process.version}.\n\n`);
  process.stdout.write(table(['served as', 'series', 'cold plain', 'cold gzip', 'warm plain', 'warm gzip'], rows));
}

await main();
