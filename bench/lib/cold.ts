// The cold scrape side by side with prom-client, in one process and one run:
// the same series (names, labels, values) in a prom-client Registry rendered by
// registry.metrics(), against our first render after a publish that changed
// every family. Rounds alternate between the two so background load on a shared
// machine falls on both alike; medians are reported.
import { gzipSync } from 'node:zlib';
import { Counter, Gauge, Registry, type RegistryContentType } from 'prom-client';
import type { Exposition, ExpositionFormat, FamilySnapshot } from '../../src/exporters/prometheus/index.js';
import { publishCycle, type Published } from './series.js';
import { median, since } from './stats.js';

export interface ColdTimes {
  /** Our publish of a cycle changing every family (ledger apply + store publish): paid once per cycle, not per scrape. */
  readonly publish: number;
  readonly plain: number;
  readonly gzip: number;
  readonly promClientPlain: number;
  /** registry.metrics() then gzipSync at zlib's default level, as a prom-client server with compression does. */
  readonly promClientGzip: number;
  /**
   * The same four, as CPU time of the whole process (user + system, every thread: our gzip figure includes
   * the thread pool's deflating). Less bent by other work on a shared machine than wall time, which a
   * scrape waits for; the target is read on wall time.
   */
  readonly cpu: { readonly plain: number; readonly gzip: number; readonly promClientPlain: number; readonly promClientGzip: number };
}

/** A Registry holding exactly `families`' series, in the same exposition format. */
function promClientRegistry(families: readonly FamilySnapshot[], format: ExpositionFormat): Registry<RegistryContentType> {
  const registry = new Registry<RegistryContentType>();
  if (format === 'openmetrics') registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  for (const { def, series } of families) {
    if (series.length === 0) continue;
    const config = { name: def.name, help: def.help, labelNames: [...def.labels], registers: [registry] };
    const metric = def.type === 'counter' ? new Counter(config) : new Gauge(config);
    for (const s of series) {
      const labels = Object.fromEntries(def.labels.map((label, i) => [label, s.labelValues[i] ?? '']));
      if (metric instanceof Counter) metric.inc(labels, s.value);
      else metric.set(labels, s.value);
    }
  }
  return registry;
}

export async function measureCold(published: Published, exposition: Exposition, format: ExpositionFormat, rounds: number, firstCycle: number): Promise<ColdTimes> {
  const registry = promClientRegistry(published.store.snapshot(), format);
  type Key = Exclude<keyof ColdTimes, 'cpu'>;
  const t: Record<Key, number[]> = { publish: [], plain: [], gzip: [], promClientPlain: [], promClientGzip: [] };
  const cpu: Record<Key, number[]> = { publish: [], plain: [], gzip: [], promClientPlain: [], promClientGzip: [] };
  const time = async (key: Key, run: () => unknown): Promise<void> => {
    const used = process.cpuUsage();
    const start = performance.now();
    await run();
    t[key].push(since(start));
    const { user, system } = process.cpuUsage(used);
    cpu[key].push((user + system) / 1000);
  };
  let cycle = firstCycle;
  for (let round = 0; round < rounds; round++) {
    // A gzip scrape after a publish renders and deflates, so each gets its own publish.
    await time('publish', () => publishCycle(published, cycle++));
    await time('plain', () => exposition.render(format));
    await time('promClientPlain', () => registry.metrics());
    publishCycle(published, cycle++);
    await time('gzip', () => exposition.renderGzip(format));
    await time('promClientGzip', async () => gzipSync(await registry.metrics()));
  }
  return {
    publish: median(t.publish), plain: median(t.plain), gzip: median(t.gzip), promClientPlain: median(t.promClientPlain), promClientGzip: median(t.promClientGzip),
    cpu: { plain: median(cpu.plain), gzip: median(cpu.gzip), promClientPlain: median(cpu.promClientPlain), promClientGzip: median(cpu.promClientGzip) },
  };
}
