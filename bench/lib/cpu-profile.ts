// Summarises a V8 CPU profile (.cpuprofile: `node --cpu-prof`, or the
// inspector's Profiler.stop) of the WAF forwarder by self time: per category
// of the daemon's work per event (reading pages, conversion, record
// building, serialization, HTTP out, checkpoint, GC) and the top functions.
//
// A sample is charged to the deepest frame on its stack that some part of
// the code owns (a file of src/, a package): V8 charges a builtin's time
// (JSON.parse, JSON.stringify, Map.set) to the JavaScript function that
// called it, and node's own stream and socket code to whoever's callback it
// runs, so a socket write under the OTLP exporter counts as HTTP out and one
// under undici as reading. Node internals count only when no owner is found
// on the whole stack (an event-loop callback of node's own), the first rule
// that matches any of them deciding. The profile is of the main thread only:
// V8's concurrent GC and libuv's pool (fsync) run on other threads, which the
// benchmark reads from /proc.
//
// A sample's time is wall-clock time while the thread was not idle: on a
// loaded machine the time it sat preempted is in it too. Most of that lands
// in writev: a write to a peer on loopback wakes it, and on a busy machine
// the woken process takes the core (500 small page requests showed several
// times the writev time of 100 OTLP exports of 780 KB each). So writev is a
// category of its own, left out of the CPU scaling: µs per event are the
// other categories' shares of the main thread's CPU time measured from /proc
// when that is known (mainCpuMs); the kernel's real share of writev is in
// that CPU time (system), spread over the rest.
import { z } from 'zod';
import { fmtInt, table } from './stats.js';

const callFrameSchema = z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() });
const profileSchema = z.object({
  nodes: z.array(z.object({ id: z.number(), callFrame: callFrameSchema, children: z.array(z.number()).optional() })),
  startTime: z.number(),
  endTime: z.number(),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});
type CpuProfile = z.infer<typeof profileSchema>;
type CallFrame = z.infer<typeof callFrameSchema>;

const IDLE = 'idle (not CPU)';
const WRITEV = 'socket writev (mostly waiting after waking a peer; not scaled)';

interface Rule {
  readonly category: string;
  /** A weak owner counts only when no strong one is on the stack (node internals). */
  readonly weak?: boolean;
  readonly test: (frame: CallFrame) => boolean;
}

const inUrl = (...parts: string[]) => (f: CallFrame): boolean => parts.some((p) => f.url.includes(p));
const named = (name: string) => (f: CallFrame): boolean => f.functionName === name && f.url === '';
const WAF = '/src/forwarder/';

/** First match wins; the order puts the narrower rules first. */
const RULES: readonly Rule[] = [
  { category: 'GC (main thread)', test: named('(garbage collector)') },
  { category: IDLE, test: named('(idle)') },
  { category: WRITEV, test: named('writev') },
  { category: 'V8/native, unattributed ((program))', test: named('(program)') },
  // JSON.parse's time is charged to its caller, which does nothing else.
  { category: 'read: JSON.parse of pages', test: (f) => f.functionName === 'parseJson' && f.url.endsWith('/src/api/transport.ts') },
  { category: 'read: zod validation of pages', test: inUrl('/node_modules/zod/') },
  { category: 'read: HTTP in (undici, src/api)', test: inUrl('/node_modules/undici/', '/src/api/') },
  { category: 'convert (convert.ts, attributes.ts)', test: inUrl(`${WAF}convert.ts`, `${WAF}attributes.ts`, `${WAF}record-time.ts`) },
  {
    category: 'checkpoint (journal, ids, counters)',
    test: inUrl(`${WAF}checkpoint.ts`, `${WAF}delivery-state.ts`, `${WAF}window.ts`, `${WAF}metrics.ts`, `${WAF}mismatches.ts`, '/src/state/',
      '/src/counters/ledger.ts'),
  },
  // Every checkpoint save publishes the denied counter to the Prometheus exporter's store.
  { category: 'denied counter publish (FamilyStore)', test: inUrl('/src/exporters/prometheus/') },
  { category: 'forwarder loop (drain, dedupe, deliver)', test: inUrl(WAF, '/src/collectors/', '/src/engine/', '/node_modules/p-retry/', '/node_modules/p-limit/') },
  {
    category: 'serialization (otlp-transformer, protobufjs)',
    test: inUrl('/@opentelemetry/otlp-transformer/', '/node_modules/protobufjs/', '/src/exporters/otel-logs/otlp-serializer.ts', '/src/exporters/otel-logs/record-message.ts'),
  },
  {
    category: 'HTTP out (OTLP exporter, node:http)',
    test: inUrl('/@opentelemetry/otlp-exporter-base/', '/@opentelemetry/exporter-logs-otlp-http/'),
  },
  { category: 'record building (sink, SDK records)', test: inUrl('/src/exporters/otel-logs/', '/node_modules/@opentelemetry/') },
  { category: 'logging (pino)', test: inUrl('/node_modules/pino', '/src/shared/log') },
  { category: 'benchmark harness', test: inUrl('/bench/') },
  { category: 'module loading (tsx)', test: inUrl('/node_modules/tsx/') },
  // Node's own code, when nothing of ours or of a package is above it. node:http is only the OTLP exporter's (undici has its own).
  { category: 'HTTP out (OTLP exporter, node:http)', weak: true, test: inUrl('node:_http_', 'node:http', 'node:https') },
  { category: 'checkpoint (journal, ids, counters)', weak: true, test: inUrl('node:fs', 'node:internal/fs/') },
  { category: 'sockets and streams (unowned)', weak: true, test: inUrl('node:net', 'node:stream', 'node:internal/stream', 'node:internal/streams/') },
  { category: 'event loop, promises, timers', weak: true, test: (f) => f.url.startsWith('node:') },
];
const OTHER = 'other';

function ruleOf(frame: CallFrame): Rule | undefined {
  return RULES.find((r) => r.test(frame));
}

/** Category of every node: its own frame's, else its nearest strong owner's, else the first weak rule matching the stack. */
function categorize(profile: CpuProfile): Map<number, string> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<number, string>();
  for (const node of profile.nodes) {
    let weak: Rule | undefined;
    let strong: Rule | undefined;
    for (let id: number | undefined = node.id; id !== undefined && strong === undefined; id = parent.get(id)) {
      const rule = ruleOf(byId.get(id)?.callFrame ?? { functionName: '', url: '', lineNumber: 0 });
      if (rule === undefined) continue;
      // Among node's own frames the rule order decides: a socket write under node:http's end() is HTTP out.
      if (rule.weak === true) weak = weak === undefined || RULES.indexOf(rule) < RULES.indexOf(weak) ? rule : weak;
      else strong = rule;
    }
    out.set(node.id, (strong ?? weak)?.category ?? OTHER);
  }
  return out;
}

interface ProfileSummary {
  /** Sampled time per category, ms. */
  readonly categories: ReadonlyArray<{ category: string; ms: number }>;
  /** The functions with the most self time, ms. */
  readonly functions: ReadonlyArray<{ name: string; category: string; ms: number }>;
  /** Sampled time that was not idle, ms. */
  readonly busyMs: number;
  /** Sampled time in writev, ms. */
  readonly writevMs: number;
  readonly spanMs: number;
  readonly samples: number;
}

export function parseProfile(json: unknown): CpuProfile {
  return profileSchema.parse(json);
}

export function summarizeProfile(profile: CpuProfile, top = 15): ProfileSummary {
  const category = categorize(profile);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + Math.max(0, profile.timeDeltas[i] ?? 0)));
  const byCategory = new Map<string, number>();
  const byFunction = new Map<string, { name: string; category: string; ms: number }>();
  const short = (url: string): string => url.replace(/^file:\/\/.*?\/(node_modules|src|bench)\//, '$1/');
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0;
    if (us === 0) continue;
    const cat = category.get(node.id) ?? OTHER;
    byCategory.set(cat, (byCategory.get(cat) ?? 0) + us / 1000);
    const { functionName, url, lineNumber } = node.callFrame;
    // Line numbers are of the code V8 ran: tsx's output has none worth showing (0), node_modules' are the files'.
    const name = url === '' ? functionName || '(anonymous builtin)' : `${functionName || '(anonymous)'} ${short(url)}${lineNumber > 0 ? `:${lineNumber + 1}` : ''}`;
    // One row per function and category: a builtin (writev) is charged to whoever called it.
    const key = `${name}\u0000${cat}`;
    const entry = byFunction.get(key) ?? { name, category: cat, ms: 0 };
    entry.ms += us / 1000;
    byFunction.set(key, entry);
  }
  const categories = [...byCategory].map(([c, ms]) => ({ category: c, ms })).sort((a, b) => b.ms - a.ms);
  const busyMs = categories.filter((c) => c.category !== IDLE).reduce((sum, c) => sum + c.ms, 0);
  const functions = [...byFunction.values()].filter((f) => f.category !== IDLE).sort((a, b) => b.ms - a.ms).slice(0, top);
  const writevMs = categories.find((c) => c.category === WRITEV)?.ms ?? 0;
  return { categories, functions, busyMs, writevMs, spanMs: (profile.endTime - profile.startTime) / 1000, samples: profile.samples.length };
}

/**
 * Markdown: the categories and the top functions, as shares of the busy (not
 * idle) sampled time and in µs per event: those shares of `mainCpuMs` (the
 * main thread's CPU over the same run, from /proc) when given, else of the
 * sampled time itself.
 */
export function profileMarkdown(summary: ProfileSummary, events: number, mainCpuMs?: number): string {
  const scale = mainCpuMs === undefined ? 1 : mainCpuMs / (summary.busyMs - summary.writevMs);
  const perEvent = (ms: number, category?: string): string =>
    mainCpuMs !== undefined && category === WRITEV ? '—' : ((ms * scale * 1000) / events).toFixed(1);
  const share = (ms: number): string => `${((ms / summary.busyMs) * 100).toFixed(1)}%`;
  const busy = summary.categories.filter((c) => c.category !== IDLE);
  const idle = summary.categories.find((c) => c.category === IDLE)?.ms ?? 0;
  const basis = mainCpuMs === undefined
    ? 'µs/event: sampled time (wall-clock while busy) per event'
    : `µs/event: each category's share of the busy time without writev, times the main thread's CPU time from /proc ` +
      `(${(mainCpuMs / 1000).toFixed(2)} s, ${((mainCpuMs * 1000) / events).toFixed(1)} µs per event)`;
  return [
    `Main-thread CPU profile: ${fmtInt(summary.samples)} samples over ${(summary.spanMs / 1000).toFixed(1)} s; busy ${(summary.busyMs / 1000).toFixed(2)} s ` +
      `(${((summary.busyMs * 1000) / events).toFixed(1)} µs per event over ${fmtInt(events)} events), idle ${(idle / 1000).toFixed(2)} s. ${basis}.`,
    '',
    table(['category (self time, charged to the deepest owning frame)', 'sampled ms', 'µs/event', '% of busy'],
      [...busy.map((c) => [c.category, c.ms.toFixed(0), perEvent(c.ms, c.category), share(c.ms)]),
        ['**total (busy)**', summary.busyMs.toFixed(0), perEvent(summary.busyMs - summary.writevMs), '100%']]),
    '',
    table(['top self-time functions', 'category', 'µs/event', '% of busy'], summary.functions.map((f) => [`\`${f.name}\``, f.category, perEvent(f.ms, f.category), share(f.ms)])),
  ].join('\n');
}
