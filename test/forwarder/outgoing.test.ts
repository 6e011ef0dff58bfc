// A batch on its way, as the forwarder holds it: each event goes to the
// sink's batch whole, and the forwarder keeps of it only what it reads once
// the batch is confirmed; a summary record confirms every event it folds.
import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/forwarder/log-sink.js';
import { keptOf } from '../../src/forwarder/kept.js';
import { Outgoing } from '../../src/forwarder/outgoing.js';
import { EventBatch } from './fakes.js';

const T = Date.UTC(2026, 2, 2, 4, 0, 0);

function event(uid: string): LogEvent {
  return {
    uid, timestampMs: T, observedMs: T + 1000, severity: 'ERROR', severityText: '高风险', eventName: 'edge.waf.deny', body: `deny ${uid}`,
    attributes: { 'server.address': 'x.test', 'security_rule.uuid': 'R1', 'client.address': '1.1.1.1', 'edge.waf.severity_level': '高风险', 'url.path': `/${uid}` },
  };
}

describe('Outgoing', () => {
  it('hands each event whole to the sink\'s batch and keeps only what the confirmation reads', () => {
    const records = new EventBatch();
    const batch = new Outgoing(records);
    const events = [event('a'), event('b')];
    for (const e of events) batch.add(e);
    expect(records.events).toEqual(events);
    expect(batch.events).toEqual(events.map(keptOf));
    expect(batch.events.every((e) => e.body === '' && !('url.path' in e.attributes))).toBe(true);
  });

  it('confirms, for a summary record, every event it folds: also more than a call takes arguments', () => {
    const records = new EventBatch();
    const batch = new Outgoing(records);
    const folded = Array.from({ length: 300_000 }, (_, i) => keptOf(event(`f${i}`)));
    const summary = { ...event('summary-1'), eventName: 'edge.waf.deny_summary' };
    batch.addSummary(summary, folded);
    batch.addSummary({ ...summary, uid: 'summary-2' }, [keptOf(event('g'))]);
    expect(records.events.map((e) => e.uid)).toEqual(['summary-1', 'summary-2']);
    expect(batch.events).toHaveLength(300_001);
    expect(batch.events.at(-1)?.uid).toBe('g');
  });
});
