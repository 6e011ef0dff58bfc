// The denied counter's bookkeeping per confirmed batch (DeniedCounts): what
// each batch adds per series (the journal line), the totals, and the series
// cap, against counts made by hand event by event.
import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/forwarder/log-sink.js';
import { ATTR, EDGE_ATTR } from '../../src/forwarder/attributes.js';
import { DeniedCounts } from '../../src/forwarder/metrics.js';

let n = 0;
function event(host: string | undefined, rule: string | undefined, level: string): LogEvent {
  n += 1;
  const attributes: Record<string, string> = { [EDGE_ATTR.SEVERITY_LEVEL]: level };
  if (host !== undefined) attributes[ATTR.SERVER_ADDRESS] = host;
  if (rule !== undefined) attributes[ATTR.SECURITY_RULE_UUID] = rule;
  return { uid: `u${n}`, timestampMs: 0, observedMs: 0, severity: 'ERROR', severityText: level, eventName: 'edge.waf.deny', body: '', attributes };
}
const A = () => event('a.example', '942100', '高风险');
const B = () => event('b.example', '942100', '中风险');
const C = () => event('a.example', '920320', '低风险');
const D = () => event('a.example', '942100', '低风险');

const totals = (counts: DeniedCounts) => Object.fromEntries(counts.entries().map((e) => [`${e.labels.domain}|${e.labels.rule_id}|${e.labels.severity}`, e.value]));

describe('DeniedCounts', () => {
  it('counts each batch per series, in the order of their first event, and keeps the totals', () => {
    const counts = new DeniedCounts(100);
    const first = counts.add([A(), B(), A(), C(), B(), A()]);
    expect(first).toEqual([
      { labels: { domain: 'a.example', rule_id: '942100', severity: 'high' }, value: 3 },
      { labels: { domain: 'b.example', rule_id: '942100', severity: 'medium' }, value: 2 },
      { labels: { domain: 'a.example', rule_id: '920320', severity: 'low' }, value: 1 },
    ]);
    expect(counts.add([C(), A()]).map((d) => d.value)).toEqual([1, 1]);
    expect(totals(counts)).toEqual({ 'a.example|942100|high': 4, 'b.example|942100|medium': 2, 'a.example|920320|low': 2 });
    expect(counts.dropped).toBe(0);
  });

  it('labels what is missing or unknown, whatever the text (a severity named like an Object member included)', () => {
    const counts = new DeniedCounts(100);
    counts.add([event(undefined, undefined, 'constructor'), event('', '', '严重'), event('c.example', 'r', '__proto__')]);
    expect(totals(counts)).toEqual({ 'unknown|none|unknown': 2, 'c.example|r|unknown': 1 });
  });

  it('admits a new series while the cap allows, at its first event, and counts the events refused', () => {
    const counts = new DeniedCounts(2);
    // Event by event: A and C take the two series, B and D are refused; the repeats of A and C still count.
    const deltas = counts.add([A(), C(), B(), C(), A(), D()]);
    expect(deltas.map((d) => [d.labels.domain, d.labels.rule_id, d.labels.severity, d.value])).toEqual([
      ['a.example', '942100', 'high', 2],
      ['a.example', '920320', 'low', 2],
    ]);
    expect(counts.dropped).toBe(2);
    expect(counts.add([B(), A(), D()]).map((d) => d.value)).toEqual([1]);
    expect(counts.dropped).toBe(4);
    expect(totals(counts)).toEqual({ 'a.example|942100|high': 3, 'a.example|920320|low': 2 });
  });

  it('keeps refusing a refused series after more series were refused than it remembers', () => {
    const counts = new DeniedCounts(1);
    // A is admitted; B, C and D are refused, more of them than the cap: the later ones are looked up again each time.
    expect(counts.add([A(), B(), C(), D()]).map((d) => d.value)).toEqual([1]);
    expect(counts.add([D(), C(), B(), A(), B()]).map((d) => [d.labels.domain, d.labels.severity, d.value])).toEqual([['a.example', 'high', 1]]);
    expect(counts.dropped).toBe(7);
    expect(totals(counts)).toEqual({ 'a.example|942100|high': 2 });
  });

  it('continues restored series, which count against the cap, and forgets what was counted before the restore', () => {
    const counts = new DeniedCounts(2);
    counts.add([C(), D()]);
    counts.restore([{ labels: { domain: 'a.example', rule_id: '942100', severity: 'high' }, value: 10 }]);
    // A is restored (known); B takes the one series left; C, counted before the restore, is new again and refused.
    expect(counts.add([A(), B(), C(), A()]).map((d) => d.value)).toEqual([2, 1]);
    expect(counts.dropped).toBe(1);
    expect(totals(counts)).toEqual({ 'a.example|942100|high': 12, 'b.example|942100|medium': 1 });
  });
});
