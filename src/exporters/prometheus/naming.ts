// Naming rules a metric family must meet before it is exposed, and the label-value length cap.
import type { MetricDef } from '../../collectors/index.js';
import { EdgeError } from '../../shared/errors.js';

/** Labels Prometheus attaches itself (target labels) or that our naming rules forbid. */
const RESERVED_LABELS: ReadonlySet<string> = new Set([
  'instance',
  'job',
  'zone',
  'region',
  'service',
  'env',
  // Exposition-level meaning in histograms and summaries.
  'le',
  'quantile',
]);

/** Self-metrics (exporter health) live under this prefix; data families may not. */
export const SELF_PREFIX = 'edge_exporter_';

const METRIC_NAME = /^edge_[a-zA-Z0-9_]*[a-zA-Z0-9]$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export class MetricDefinitionError extends EdgeError {
  readonly code = 'EDGE_METRIC_DEF_INVALID';
  constructor(readonly problems: readonly string[]) {
    super(`invalid metric definitions:\n  ${problems.join('\n  ')}`);
  }
}

/** Every problem with one definition; empty when it is valid. Pure. */
export function metricDefProblems(def: MetricDef): string[] {
  const problems: string[] = [];
  const { name } = def;
  if (!METRIC_NAME.test(name)) problems.push(`${name}: name must match ${METRIC_NAME.source}`);
  if (name.startsWith(SELF_PREFIX)) problems.push(`${name}: the ${SELF_PREFIX} prefix is reserved for self-metrics`);
  if (def.type === 'counter' && !name.endsWith('_total')) problems.push(`${name}: a counter name must end in _total`);
  // A gauge named like a counter sample (or an OpenMetrics `_created`) would
  // clash with counter families in OpenMetrics and mislead rate() users.
  if (def.type === 'gauge' && /_(total|created)$/.test(name)) problems.push(`${name}: a gauge name must not end in _total or _created`);
  if (def.help.trim() === '') problems.push(`${name}: help text is empty`);
  const seen = new Set<string>();
  for (const label of def.labels) {
    if (!LABEL_NAME.test(label)) problems.push(`${name}: label "${label}" must match ${LABEL_NAME.source}`);
    else if (label.startsWith('__')) problems.push(`${name}: label "${label}" starts with __ (reserved for Prometheus)`);
    else if (RESERVED_LABELS.has(label)) problems.push(`${name}: label "${label}" is reserved`);
    if (seen.has(label)) problems.push(`${name}: label "${label}" is listed twice`);
    seen.add(label);
  }
  return problems;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Replaces each lone surrogate (valid in a JS string, not encodable in UTF-8)
 * with U+FFFD, as the UTF-8 encoder would on output. Done before a value
 * identifies a series: two values differing only in lone surrogates would
 * otherwise be two series in the store and one series, twice, in the exposition.
 */
export function wellFormedLabelValue(value: string): string {
  return value.replace(LONE_SURROGATE, '\uFFFD');
}

/** Marks a value that was cut to the length cap. */
const TRUNCATION_MARKER = '…';

/**
 * Caps a label value at `max` UTF-16 code units, marker included. The cut
 * never falls inside a surrogate pair, so the result encodes to valid UTF-8.
 */
export function capLabelValue(value: string, max: number): string {
  if (value.length <= max) return value;
  let cut = max - TRUNCATION_MARKER.length;
  const last = value.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return value.slice(0, Math.max(cut, 0)) + TRUNCATION_MARKER;
}
