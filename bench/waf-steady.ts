// The WAF forwarder caught up (section 12.3 of `git show 7888197:docs/benchmarks.md`), where bench/waf.ts
// measures a backlog: the same peers (bench/lib/waf-peers.ts, in a process of
// their own) and sink, the config defaults but `start_from` 10m, a clock that
// moves `interval` between polls. After catching up and one poll near now,
// --polls=N polls (default 12) are measured: records read per delivered event
// and this process's CPU (every thread, /proc) per delivered event, and the
// requests per hour by action (logs pages; the delivery audit's logTread). A live
// flood is this steady state at a higher rate: --domains=N sets it (30,000:
// about 250 deny events a second). Prints one JSON line.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { platformClock } from '../src/api/index.js';
import type { JobLogger } from '../src/engine/job.js';
import { WafEventForwarder } from '../src/forwarder/index.js';
import { otlpSchema, wafAudit, wafEventsSchema, wafOverlap } from '../src/config/sections/waf-events.js';
import { StateStore } from '../src/state/store.js';
import { startChild } from './lib/child.js';
import { wafParts } from './lib/waf-parts.js';
import { cpuSince, processCpu } from './lib/proc-cpu.js';

const { values } = parseArgs({ options: { domains: { type: 'string' }, polls: { type: 'string' } } });
const domains = Number(values.domains ?? '30000');
const measuredPolls = Number(values.polls ?? '12');
const waf = wafEventsSchema.parse({ enabled: true, start_from: '10m' });

const quiet: JobLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => quiet };

async function main(): Promise<void> {
  let now = Math.floor(Date.now() / 1000) * 1000;
  const peers = await startChild('waf-peers.ts', [`--domains=${domains}`], z.object({ upstream: z.string(), receiver: z.string(), events: z.number() }));
  const dir = await mkdtemp(join(tmpdir(), 'edge-bench-waf-steady-'));
  const otlp = otlpSchema.parse({ endpoint: peers.ready.receiver });
  const { sink, client, families } = wafParts(peers.ready.upstream, otlp);
  // The requests the forwarder makes, by action: the polls' logs pages and the delivery audit's logTread checks.
  const asked = { logs: 0, logTread: 0 };
  const counted: Pick<typeof client, 'describeLogV2'> = {
    describeLogV2: (request, options) => {
      asked[request.action[0]?.metricName === 'logTread' ? 'logTread' : 'logs']++;
      return client.describeLogV2(request, options);
    },
  };
  const seen = { read: 0, forwarded: 0 };
  const forwarder = new WafEventForwarder({
    client: counted, tz: platformClock('+08:00'), sink, samples: families, store: new StateStore(join(dir, 'state')), log: quiet,
    intervalMs: waf.interval, ...wafOverlap(waf), delayMs: waf.delay, maxWindowMs: waf.max_window, startBackMs: waf.start_from,
    maxWindowEvents: waf.max_window_events, ...wafAudit(waf), query: { pageSize: waf.page_size }, headers: waf.headers,
    clock: { now: () => now },
    observer: { onForwarded: (n) => (seen.forwarded += n), onRead: (n) => (seen.read += n) },
  });
  const poll = async (): Promise<void> => {
    const report = await forwarder.run(new AbortController().signal);
    if (!report.ok) throw new Error(`poll failed: ${JSON.stringify(report.error)}`);
    now += waf.interval;
  };
  try {
    await sink.start();
    await forwarder.restore();
    // The backlog, then the first poll near now: from there every poll is alike.
    await poll();
    await poll();
    seen.read = 0;
    seen.forwarded = 0;
    asked.logs = 0;
    asked.logTread = 0;
    const before = await processCpu(process.pid);
    for (let i = 0; i < measuredPolls; i++) await poll();
    const { all } = cpuSince(before, await processCpu(process.pid));
    const cpuMs = all.userMs + all.systemMs;
    const result = {
      domains, polls: measuredPolls, read: seen.read, forwarded: seen.forwarded,
      readPerDelivered: Number((seen.read / seen.forwarded).toFixed(2)),
      cpuMs: Math.round(cpuMs), cpuMicrosPerEvent: Number(((cpuMs * 1000) / seen.forwarded).toFixed(1)),
      // Per hour of the measured polls' event time (they are `interval` apart).
      requestsPerHour: {
        logs: Math.round((asked.logs * 3_600_000) / (measuredPolls * waf.interval)),
        logTread: Math.round((asked.logTread * 3_600_000) / (measuredPolls * waf.interval)),
      },
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await sink.stop();
    await client.close();
    await peers.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
