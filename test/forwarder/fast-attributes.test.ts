// toLogEvent's attributes stay a fast object, not a hash table: V8 turns an
// object that gains more than 12 properties through computed keys into a
// dictionary, which cost 6 KB of garbage per event and a sort of the keys at
// every walk (docs/benchmarks.md 12.7). Asked of V8 itself
// (%HasFastProperties, a natives-syntax flag only a child node can take), on
// an hour of simulator events with every header forwarded that it sends.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const PROBE = `
const { toLogEvent, headerPolicy } = await import('./src/forwarder/convert.ts');
const { wafLogRecord } = await import('./src/api/schemas/waf-log.ts');
const { createSimulator } = await import('./src/simulator/index.ts');
const t0 = Date.UTC(2026, 2, 2, 4, 0, 0);
const sim = createSimulator({ clock: { mode: 'fixed', start: t0 }, domains: 20 });
const policy = headerPolicy(['host', 'user-agent', 'referer', 'x-forwarded-for', 'content-type', 'accept']);
const fast = new Function('o', 'return %HasFastProperties(o)');
const events = sim.truth.wafEvents(t0 - 3_600_000, t0).map((e) => toLogEvent(wafLogRecord.parse(e.record), t0, policy, 480));
process.stdout.write(JSON.stringify({
  events: events.length,
  dictionaries: events.filter((e) => !fast(e.attributes)).length,
  most: Math.max(...events.map((e) => Object.keys(e.attributes).length)),
}));
`;

describe('toLogEvent attributes', () => {
  it('are a fast object for every simulator event, the largest ones (over 30 attributes) included', () => {
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', PROBE], { cwd: ROOT, encoding: 'utf8' });
    const result = JSON.parse(out) as { events: number; dictionaries: number; most: number };
    expect(result.events).toBeGreaterThan(1000);
    expect(result.most).toBeGreaterThan(30);
    expect(result.dictionaries).toBe(0);
  });
});
