// Soak benchmark: a simulated day (1,440 one-minute steps; --hours=N) over
// --domains=N (default 50) with faults injected at random from --seed=N
// (bench/lib/soak-driver.ts), the daemon in a child process started with
// --expose-gc. Fails (exit 1) when a counter differs from the truth, a WAF
// deny event is missing or duplicated, a pass event was forwarded, a scrape
// failed, or the daemon's heap after GC grows by more than the threshold
// between the first and the last quarter of the run.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { fmtBytes, fmtInt, fmtMs, median, summarize, table } from './lib/stats.js';
import { runSoak, type SoakResult } from './lib/soak-driver.js';
import { remoteDaemon } from './lib/soak-remote.js';

/**
 * Heap growth (median of the last quarter's hourly samples minus the first
 * quarter's) that fails the run: above the ~1.5 MiB of JIT code and noise a
 * day adds, below the 5 MiB the in-process restart leak added (docs/benchmarks.md).
 */
const HEAP_GROWTH_LIMIT = 3 * 2 ** 20;
const FAULT_RATE = 0.08;

interface Verdict { readonly ok: boolean; readonly lines: readonly string[] }

function quarters(result: SoakResult, read: (m: SoakResult['memory'][number]) => number): { first: number; last: number } {
  // The sample at step 0 is before any cycle (nothing loaded yet): not part of the trend.
  const samples = result.memory.filter((m) => m.step > 0).map(read);
  const q = Math.max(1, Math.floor(samples.length / 4));
  return { first: median(samples.slice(0, q)), last: median(samples.slice(-q)) };
}

function verdict(result: SoakResult): Verdict {
  const heap = quarters(result, (m) => m.heapUsed);
  const growth = heap.last - heap.first;
  const limit = HEAP_GROWTH_LIMIT;
  const checks: Array<[string, boolean]> = [
    [`counters equal the truth (${fmtInt(result.counters.checked)} series)`, result.counters.mismatches.length === 0],
    [`every deny event of the range delivered (${fmtInt(result.waf.expected)}), none missing`, result.waf.missing.length === 0 && result.waf.expected > 0],
    ['no deny event delivered twice', result.waf.duplicates === 0],
    ['no pass event and no unknown record forwarded', result.waf.passEvents === 0 && result.waf.unknown.length === 0],
    [`every scrape answered 200 (${fmtInt(result.scrapes.ok)})`, result.scrapes.failed === 0],
    [`heap after GC: last quarter − first quarter = ${fmtBytes(growth)}, limit ${fmtBytes(limit)}`, growth <= limit],
  ];
  return { ok: checks.every(([, ok]) => ok), lines: checks.map(([what, ok]) => `- ${ok ? 'pass' : 'FAIL'}: ${what}`) };
}

function report(result: SoakResult, domains: number, seed: number, load: string): string {
  const hours = result.steps / 60;
  const out = ['## Soak (`npm run bench -- soak`)', ''];
  out.push(`${hours} simulated hours (${fmtInt(result.steps)} one-minute steps on the simulator's fixed clock, each: every collector once via runOnce(), one WAF event poll via forwardOnce(), one /metrics scrape) over ${domains} domains, seed ${seed}; access, usage, CC attack and WAF trend at 1m, WAF deny events forwarded to an OTLP receiver. Daemon in a child process with --expose-gc. Wall time ${fmtMs(result.wallMs)}; load average before ${load}.`, '');
  const steps = summarize(result.stepTimes.map((t) => t.ms));
  out.push(`Wall time per step: median ${fmtMs(steps.p50)}, p99 ${fmtMs(steps.p99)}, max ${fmtMs(steps.max)}.`, '');
  out.push(`Faults started (chance ${FAULT_RATE} per step with none running, none in the first step and the last 12): ${Object.entries(result.faults).map(([k, n]) => `${k} ${n}`).join(', ')}; OTLP exports refused while down: ${result.refusedExports}. One-step faults by the operation they hit: ${Object.entries(result.aimed).sort().map(([k, n]) => `${k} ${n}`).join(', ')}.`, '');
  out.push(table(['collector', 'runs ok', 'runs failed', 'partial errors'], Object.entries(result.runs).map(([c, t]) => [c, t.ok, t.failed, t.partialErrors])), '');
  out.push(`WAF polls: ${result.forwards.ok} ok, ${result.forwards.failed} failed; ${fmtInt(result.forwards.forwarded)} events forwarded. Range [${new Date(result.waf.originMs).toISOString()}, ${new Date(result.waf.cursorMs).toISOString()}): ${fmtInt(result.waf.expected)} deny events expected, ${fmtInt(result.waf.received)} records received, ${result.waf.missing.length} missing, ${result.waf.duplicates} duplicates, ${result.waf.passEvents} pass events, ${result.waf.unknown.length} unknown.`, '');
  if (result.counters.mismatches.length > 0) out.push('Counter differences (first 20):', '', ...result.counters.mismatches.slice(0, 20).map((m) => `- ${m}`), '');
  out.push('Daemon memory after 4 forced GCs, every simulated hour:', '');
  out.push(table(['simulated hour', 'heap used', 'external', 'RSS'], result.memory.map((m) => [m.step / 60, fmtBytes(m.heapUsed), fmtBytes(m.external), fmtBytes(m.rss)])), '');
  const heap = quarters(result, (m) => m.heapUsed);
  const rss = quarters(result, (m) => m.rss);
  out.push(`Median of the first vs the last quarter (hours after 0): heap ${fmtBytes(heap.first)} → ${fmtBytes(heap.last)}, RSS ${fmtBytes(rss.first)} → ${fmtBytes(rss.last)}.`, '');
  out.push(`Warnings logged, by message: ${Object.entries(result.warnings).map(([m, n]) => `"${m}" ${n}`).join('; ') || 'none'}.`, '');
  const v = verdict(result);
  out.push(`Verdict: ${v.ok ? 'pass' : 'FAIL'}`, '', ...v.lines);
  return out.join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { hours: { type: 'string' }, domains: { type: 'string' }, seed: { type: 'string' }, 'no-wrk': { type: 'boolean' } } });
  const hours = Number(values.hours ?? '24');
  const domains = Number(values.domains ?? '50');
  const seed = Number(values.seed ?? '20261123');
  if (!(hours >= 1 && Number.isInteger(hours * 60)) || !(domains >= 1)) throw new Error('--hours must be at least 1, --domains at least 1');
  const load = os.loadavg().map((l) => l.toFixed(2)).join(', ');
  const result = await runSoak({
    seed, domains, steps: hours * 60, faultRate: FAULT_RATE, open: remoteDaemon, memoryEvery: 60,
    progress: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${report(result, domains, seed, load)}\n`);
  return verdict(result).ok ? 0 : 1;
}

process.exitCode = await main();
