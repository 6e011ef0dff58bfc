// What the forwarder still reads of an event once it is read: what the denied
// counter, the rule info and a summary's key read (metrics.ts, rule-info.ts,
// volume.ts). A folded event keeps only this, and so does an event on its way
// in a batch, whose record the sink took as it was read (outgoing.ts).
import type { LogEvent } from './log-sink.js';
import { ATTR, EDGE_ATTR } from './attributes.js';

/** Domain, client, rule (id, description, category), severity. */
const KEPT_ATTRIBUTES = [
  ATTR.SERVER_ADDRESS, ATTR.CLIENT_ADDRESS, ATTR.SECURITY_RULE_UUID, ATTR.SECURITY_RULE_DESCRIPTION, ATTR.SECURITY_RULE_CATEGORY,
  EDGE_ATTR.SEVERITY_LEVEL,
] as const;

/** `event` with its body and every attribute but the kept ones left out. */
export function keptOf(event: LogEvent): LogEvent {
  const attributes: Record<string, LogEvent['attributes'][string]> = {};
  for (const name of KEPT_ATTRIBUTES) {
    const v = event.attributes[name];
    if (v !== undefined) attributes[name] = v;
  }
  return { ...event, body: '', attributes };
}
