// Each Prometheus family as an OTLP metric: name, unit (UCUM), description.
// Pure. The rule is the reverse of Prometheus' own OTLP translation (the
// default, UnderscoreEscapingWithSuffixes, of prometheus/otlptranslator):
// that translation appends the unit's suffix (By -> _bytes, s -> _seconds,
// By/s -> _bytes_per_second, 1 -> _ratio on a gauge) and `_total` to a
// monotonic Sum, and drops a `{...}` annotation. So the OTLP name is the
// Prometheus name without `_total` and without the unit's suffix, and a
// Prometheus OTLP receiver stores the name /metrics shows. OpenTelemetry's
// naming guidance agrees: no unit and no `_total` in a name, the unit in its
// own field, counts as annotations (`{request}`).
import type { FamilyDef } from '../prometheus/serialize.js';

interface OtlpMetricName {
  readonly name: string;
  /** UCUM, or an annotation such as `{request}`; '' when the family has no unit. */
  readonly unit: string;
  readonly description: string;
}

/** The family units that are UCUM units, with the name suffix Prometheus' translation gives each back. */
const UCUM: Readonly<Record<string, { readonly unit: string; readonly suffix: string; readonly gaugeOnly?: boolean }>> = {
  bytes: { unit: 'By', suffix: '_bytes' },
  bytes_per_second: { unit: 'By/s', suffix: '_bytes_per_second' },
  seconds: { unit: 's', suffix: '_seconds' },
  timestamp_seconds: { unit: 's', suffix: '_seconds' },
  ratio: { unit: '1', suffix: '_ratio', gaugeOnly: true },
};

/** Units that say what a value is rather than what it counts: no unit, no annotation. */
const UNITLESS = new Set(['', 'info', 'state', 'count', 'boolean']);

/** Words whose singular the rule below would get wrong (`series` is its own singular, not `sery`). */
const SINGULAR: ReadonlyMap<string, string> = new Map([['series', 'series']]);

/** Counts become annotations, singular as OpenTelemetry's conventions write them (`{request}`). */
function annotation(unit: string): string {
  const singular = SINGULAR.get(unit) ?? (unit.endsWith('ies') ? `${unit.slice(0, -3)}y` : unit.endsWith('s') && !unit.endsWith('ss') ? unit.slice(0, -1) : unit);
  return `{${singular}}`;
}

export function otlpMetricName(def: Pick<FamilyDef, 'name' | 'type' | 'unit' | 'help'>): OtlpMetricName {
  let name = def.name;
  if (def.type === 'counter' && name.endsWith('_total')) name = name.slice(0, -'_total'.length);
  const ucum = UCUM[def.unit];
  if (ucum !== undefined && !(ucum.gaugeOnly === true && def.type !== 'gauge') && name.endsWith(ucum.suffix)) {
    name = name.slice(0, -ucum.suffix.length);
  }
  const unit = ucum !== undefined ? ucum.unit : UNITLESS.has(def.unit) ? '' : annotation(def.unit);
  return { name, unit, description: def.help };
}
