// Every attribute a WAF record is sent with is in docs/waf-events.md's list, and
// every name in the list is sent: the records of an hour of simulator events
// (deny and pass), plus the one attribute the simulator never causes (a
// method outside the HTTP conventions' list), and the summary records of
// waf_events.over_rate: summarize, as the exporter hands them over.
import { describe, expect, it } from 'vitest';
import { wafLogRecord } from '../../../src/api/schemas/waf-log.js';
import { headerPolicy, toLogEvent } from '../../../src/forwarder/convert.js';
import { WindowFold } from '../../../src/forwarder/volume.js';
import { buildResource, SCOPE_NAME } from '../../../src/exporters/otel-logs/pipeline.js';
import { instrumentationScope, toReadableLogRecord } from '../../../src/exporters/otel-logs/record.js';
import { createSimulator } from '../../../src/simulator/index.js';
import { docList } from '../../support/doc-list.js';
import { RESOURCE } from './fixtures.js';

const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
const sim = createSimulator({ clock: { mode: 'fixed', start: T0 }, domains: 6 });
const records = sim.truth.wafEvents(T0 - 3_600_000, T0).map((e) => wafLogRecord.parse(e.record));
const HEADER_PREFIX = 'http.request.header.';

/** The attribute keys of the records sent, each header attribute as the docs write it. */
function sentKeys(): Set<string> {
  const first = records[0];
  if (first === undefined) throw new Error('no simulator events');
  const odd = { ...first, request: { ...first.request, method: 'PROPFIND' } };
  const policy = headerPolicy(['host', 'referer', 'x-forwarded-for']);
  const events = [...records, odd].map((r) => toLogEvent(r, T0, policy));
  // No budget: every deny event folded into a summary.
  const fold = new WindowFold(0);
  for (const event of events) if (event.attributes['edge.waf.action'] === 'deny') fold.take(event);
  const summaries = fold.summaries().map((s) => s.record);
  expect(summaries.length).toBeGreaterThan(0);
  const resource = buildResource(RESOURCE);
  const scope = instrumentationScope(SCOPE_NAME, RESOURCE.serviceVersion);
  const sent = [...events, ...summaries].map((event) => toReadableLogRecord(event, resource, scope));
  const keys = new Set<string>();
  for (const record of sent) {
    for (const key of Object.keys(record.attributes)) keys.add(key.startsWith(HEADER_PREFIX) ? `${HEADER_PREFIX}<name>` : key);
  }
  return keys;
}

describe('docs/waf-events.md lists the records’ attributes', () => {
  it('every attribute sent is documented, and every documented one is sent', () => {
    expect(records.some((r) => r.response.httpCode === 417)).toBe(true);
    const documented = docList('docs/waf-events.md', 'record-attributes');
    expect(new Set(documented).size).toBe(documented.length);
    expect([...sentKeys()].sort()).toEqual([...documented].sort());
  });

  it('names edge.waf.rule.severity_level, which was sent undocumented', () => {
    expect(docList('docs/waf-events.md', 'record-attributes')).toContain('edge.waf.rule.severity_level');
  });
});
