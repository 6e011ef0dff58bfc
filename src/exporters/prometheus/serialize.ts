// Pure rendering of metric families in the Prometheus text format 0.0.4 and OpenMetrics 1.0.0.
export type ExpositionFormat = 'text' | 'openmetrics';

export const CONTENT_TYPES: Readonly<Record<ExpositionFormat, string>> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

/**
 * Terminates a whole OpenMetrics exposition. Not part of `serialize`: the
 * exposition also carries the self-metrics, and exactly one EOF ends it all.
 */
export const OPENMETRICS_EOF = '# EOF\n';

/**
 * One metric family as the exposition sees it: a data family (a collector's MetricDef) or
 * one of the exporter's own (SELF_METRICS), which alone may be histograms.
 */
export interface FamilyDef {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly help: string;
  /** Base unit; OpenMetrics announces it in `# UNIT` when the name ends in it. */
  readonly unit: string;
  /** Label names, in exposition order. */
  readonly labels: readonly string[];
  /** Histograms: the bucket upper bounds, ascending, without +Inf. */
  readonly buckets?: readonly number[];
}

export interface SeriesSnapshot {
  /** Values of `def.labels`, in the same order. */
  readonly labelValues: readonly string[];
  /** A counter's total, a gauge's value; for a histogram, its count of observations. */
  readonly value: number;
  readonly timestampMs?: number;
  /** Histograms only. */
  readonly histogram?: HistogramSnapshot;
}

export interface HistogramSnapshot {
  /** Observations at or below each bound of `def.buckets`, cumulative (the +Inf bucket is the series' `value`). */
  readonly cumulative: readonly number[];
  readonly sum: number;
}

export interface FamilySnapshot {
  readonly def: FamilyDef;
  readonly series: readonly SeriesSnapshot[];
}

/**
 * Base units OpenMetrics may announce in `# UNIT`, when they are also the
 * suffix of the family name. Counts (requests, events, info, state, ...) are
 * not units.
 */
const OPENMETRICS_UNITS: Readonly<Record<string, string>> = {
  bytes: 'bytes',
  bytes_per_second: 'bytes_per_second',
  seconds: 'seconds',
  timestamp_seconds: 'seconds',
  ratio: 'ratio',
};

interface SerializeOptions {
  readonly format: ExpositionFormat;
  /** Keeps the metadata of families without series (the exporter's own, always listed). */
  readonly keepEmpty?: boolean;
}

/**
 * Renders the families sorted by name, each family's series sorted by label
 * values, so equal input gives byte-identical output. Families without series
 * are left out entirely (as client_golang's gatherer does) unless `keepEmpty`:
 * a data family a config disabled should not appear as empty metadata. No `# EOF` (see OPENMETRICS_EOF).
 */
export function serialize(families: readonly FamilySnapshot[], options: SerializeOptions): string {
  const open = options.format === 'openmetrics';
  const out: string[] = [];
  const sorted = [...families].sort((a, b) => compareStrings(a.def.name, b.def.name));
  for (const family of sorted) {
    if (family.series.length === 0 && options.keepEmpty !== true) continue;
    if (open) writeOpenMetricsHeader(out, family.def);
    else writeTextHeader(out, family.def);
    if (family.def.type === 'histogram') {
      writeHistogram(out, family.def, family.series, open);
      continue;
    }
    writeSampleText(out, family.def, family.series, open);
  }
  return out.join('');
}

/** A counter or gauge family's sample lines as a string; serializeFamily writes the same bytes into a Buffer. */
function writeSampleText(out: string[], def: FamilyDef, series: readonly SeriesSnapshot[], open: boolean): void {
  const build = headBuilder(def, open);
  let text = '';
  for (const s of sortedSeries(series)) {
    text += build(s);
    text += formatValue(s.value);
    text += `${timestamp(s, open)}\n`;
  }
  out.push(text);
}

/**
 * A family's sample lines up to the value (`name{a="x"} `), kept by the
 * exposition between renders: a publish usually changes only values, and then
 * the escaped labels are not built again. Kept as bytes, back to back, so a
 * render copies them into its output instead of encoding strings again.
 */
/** Each self family's rendering per format, kept while its series array is the same one (replaced on every change). */
type RenderCache = Record<ExpositionFormat, WeakMap<readonly SeriesSnapshot[], string>>;

export function renderCache(): RenderCache {
  return { text: new WeakMap(), openmetrics: new WeakMap() };
}

/**
 * `families` in `format`, every one listed even when empty (a dashboard or
 * `absent()` may look for it), in the order given; a family whose series
 * array is in `cache` is not rendered again. Empty arrays are not kept: one
 * may be shared by several families.
 */
export function serializeCached(families: readonly FamilySnapshot[], format: ExpositionFormat, cache: RenderCache): string {
  const byFormat = cache[format];
  let body = '';
  for (const family of families) {
    let text = byFormat.get(family.series);
    if (text === undefined) {
      text = serialize([family], { format, keepEmpty: true });
      if (family.series.length > 0) byFormat.set(family.series, text);
    }
    body += text;
  }
  return body;
}

export interface SampleHeads {
  /** The series the heads were built for, sorted. */
  readonly series: readonly SeriesSnapshot[];
  /** Every head's UTF-8 bytes, in series order. */
  readonly bytes: Uint8Array;
  /** Head i is `bytes[offsets[i], offsets[i + 1])`. */
  readonly offsets: Uint32Array;
}

/** One counter or gauge family rendered alone (header and samples), reusing `previous` heads when its series have the same labels. */
export function serializeFamily(family: FamilySnapshot, format: ExpositionFormat, previous: SampleHeads | undefined): { text: Buffer; heads: SampleHeads | undefined } {
  if (family.def.type === 'histogram') return { text: Buffer.from(serialize([family], { format }), 'utf8'), heads: undefined };
  const open = format === 'openmetrics';
  const header: string[] = [];
  if (open) writeOpenMetricsHeader(header, family.def);
  else writeTextHeader(header, family.def);
  return writeSamples(header.join(''), family.def, family.series, open, previous);
}

/**
 * Longest a value can print: formatValue gives at most 17 significant digits,
 * a sign, a point and an exponent such as `e-308` (24), or `NaN`/`+Inf`.
 */
const MAX_VALUE_BYTES = 24;
/** A timestamp with its space: ` -` and at most 22 characters of a finite number (formatOpenMetricsTimestamp, or String of an integer). */
const MAX_TIMESTAMP_BYTES = 32;
/** What a line can add to its head: value, timestamp, line feed. */
const MAX_LINE_TAIL_BYTES = MAX_VALUE_BYTES + MAX_TIMESTAMP_BYTES + 1;
const NEWLINE = 0x0a;
const SPACE = 0x20;

/**
 * The header, then per series its kept head, its value, its timestamp if any
 * and a line feed, written straight into one Buffer: the same bytes the string
 * form (`serialize`) gives, without building a string of the whole family and
 * encoding it afterwards. The heads are copied once into the end of a work
 * buffer and each moved into place with copyWithin: no object per series, so
 * a render right after a publish (whose series are still in the young
 * generation) triggers few scavenges. The result is copied out at its exact size.
 */
function writeSamples(header: string, def: FamilyDef, series: readonly SeriesSnapshot[], open: boolean, previous: SampleHeads | undefined): { text: Buffer; heads: SampleHeads } {
  const reuse = previous !== undefined && sameLabels(previous.series, series);
  const sorted = reuse ? series : sortedSeries(series);
  const heads = reuse ? { series: sorted, bytes: previous.bytes, offsets: previous.offsets } : buildHeads(def, sorted, open);
  const { bytes, offsets } = heads;
  // The longest the output can be; the heads sit after it, so writing never reaches a head not yet moved.
  const at = Buffer.byteLength(header) + bytes.length + sorted.length * MAX_LINE_TAIL_BYTES;
  const work = Buffer.allocUnsafeSlow(at + bytes.length);
  work.set(bytes, at);
  let pos = work.write(header, 0, 'utf8');
  let i = 0;
  // One pass with for-of: the exposition test counts a family's renderings by its iterations.
  for (const s of sorted) {
    const from = offsets[i] ?? 0;
    const to = offsets[i + 1] ?? from;
    i++;
    work.copyWithin(pos, at + from, at + to);
    pos += to - from;
    pos = writeValue(work, pos, s.value);
    if (s.timestampMs !== undefined) {
      work[pos++] = SPACE;
      pos = writeAscii(work, pos, open ? formatOpenMetricsTimestamp(s.timestampMs) : String(Math.round(s.timestampMs)));
    }
    work[pos++] = NEWLINE;
  }
  const text = Buffer.allocUnsafeSlow(pos);
  work.copy(text, 0, 0, pos);
  return { text, heads };
}

/** formatValue's text, written as bytes: safe integers digit by digit (most counters), the rest through formatValue. */
function writeValue(out: Buffer, pos: number, value: number): number {
  if (!Number.isSafeInteger(value)) return writeAscii(out, pos, formatValue(value));
  // -0 is a safe integer and prints as `0`, as String(-0) does.
  let rest = value;
  if (rest < 0) {
    out[pos++] = 0x2d;
    rest = -rest;
  }
  let end = pos + 1;
  for (let bound = 10; bound <= rest; bound *= 10) end++;
  for (let at = end - 1; at >= pos; at--) {
    const quotient = Math.floor(rest / 10);
    out[at] = 0x30 + (rest - quotient * 10);
    rest = quotient;
  }
  return end;
}

/** `text` is ASCII (a formatted number). */
function writeAscii(out: Buffer, pos: number, text: string): number {
  for (let i = 0; i < text.length; i++) out[pos + i] = text.charCodeAt(i);
  return pos + text.length;
}

const UTF8 = new TextEncoder();

/** Every series' head, UTF-8 encoded back to back. Indexed rather than for-of: the render's one for-of pass is what the exposition test counts. */
function buildHeads(def: FamilyDef, sorted: readonly SeriesSnapshot[], open: boolean): SampleHeads {
  const build = headBuilder(def, open);
  const heads = new Array<string>(sorted.length);
  for (let i = 0; i < sorted.length; i++) {
    const s = sorted[i];
    heads[i] = s === undefined ? '' : build(s);
  }
  const joined = heads.join('');
  // A plain Uint8Array, not a Buffer: its subarray() (one per series per render) costs half of Buffer's.
  const bytes = UTF8.encode(joined);
  const offsets = new Uint32Array(sorted.length + 1);
  // Without multi-byte characters a head's length in code units is its length in bytes.
  const ascii = bytes.length === joined.length;
  let at = 0;
  for (let i = 0; i < heads.length; i++) {
    offsets[i] = at;
    const head = heads[i] ?? '';
    at += ascii ? head.length : Buffer.byteLength(head, 'utf8');
  }
  offsets[heads.length] = at;
  return { series: sorted, bytes, offsets };
}

/** `name{a="x",b="y"} ` for a series; label names are fixed per family, so `name{a="`, `",b="` and `"} ` are built once. */
function headBuilder(def: FamilyDef, open: boolean): (s: SeriesSnapshot) => string {
  const sampleName = open && def.type === 'counter' ? `${baseName(def)}_total` : def.name;
  if (def.labels.length === 0) return () => `${sampleName} `;
  const prefixes = def.labels.map((label, i) => `${i === 0 ? `${sampleName}{` : '",'}${label}="`);
  return (s) => {
    const parts = new Array<string>(2 * prefixes.length + 1);
    for (let i = 0; i < prefixes.length; i++) {
      parts[2 * i] = prefixes[i] ?? '';
      parts[2 * i + 1] = escapeLabelValue(s.labelValues[i] ?? '');
    }
    parts[2 * prefixes.length] = '"} ';
    return parts.join('');
  };
}

/** Same label values in the same order (values may differ), so heads built for `a` fit `b`. */
function sameLabels(a: readonly SeriesSnapshot[], b: readonly SeriesSnapshot[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]?.labelValues;
    const y = b[i]?.labelValues;
    if (x === y) continue;
    if (x === undefined || y === undefined || x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

function timestamp(s: SeriesSnapshot, open: boolean): string {
  if (s.timestampMs === undefined) return '';
  return ` ${open ? formatOpenMetricsTimestamp(s.timestampMs) : String(Math.round(s.timestampMs))}`;
}

/**
 * `_bucket` lines (cumulative, `le` first and `+Inf` last, as prom-client
 * wrote them before), then `_sum` and `_count`; the same in both formats.
 */
function writeHistogram(out: string[], def: FamilyDef, series: readonly SeriesSnapshot[], open: boolean): void {
  const bounds = [...(def.buckets ?? []).map(formatValue), '+Inf'];
  for (const s of sortedSeries(series)) {
    const labels = def.labels.map((label, i) => `,${label}="${escapeLabelValue(s.labelValues[i] ?? '')}"`).join('');
    const braces = labels === '' ? '' : `{${labels.slice(1)}}`;
    const at = timestamp(s, open);
    const cumulative = s.histogram?.cumulative ?? [];
    bounds.forEach((le, i) => {
      out.push(`${def.name}_bucket{le="${le}"${labels}} ${formatValue(cumulative[i] ?? s.value)}${at}\n`);
    });
    out.push(`${def.name}_sum${braces} ${formatValue(s.histogram?.sum ?? 0)}${at}\n`);
    out.push(`${def.name}_count${braces} ${formatValue(s.value)}${at}\n`);
  }
}

/** The store hands series over sorted already; check in one pass before paying for a copy and a sort. */
function sortedSeries(series: readonly SeriesSnapshot[]): readonly SeriesSnapshot[] {
  for (let i = 1; i < series.length; i++) {
    const previous = series[i - 1];
    const current = series[i];
    if (previous !== undefined && current !== undefined && compareSeries(previous, current) > 0) return [...series].sort(compareSeries);
  }
  return series;
}

function writeTextHeader(out: string[], def: FamilyDef): void {
  out.push(`# HELP ${def.name} ${escapeTextHelp(def.help)}\n# TYPE ${def.name} ${def.type}\n`);
}

// OpenMetrics: metadata in the recommended order TYPE, UNIT, HELP, named after
// the family (a counter's family name has no `_total`).
function writeOpenMetricsHeader(out: string[], def: FamilyDef): void {
  const name = baseName(def);
  out.push(`# TYPE ${name} ${def.type}\n`);
  const unit = Object.hasOwn(OPENMETRICS_UNITS, def.unit) ? OPENMETRICS_UNITS[def.unit] : undefined;
  if (unit !== undefined && name.endsWith(`_${unit}`)) out.push(`# UNIT ${name} ${unit}\n`);
  out.push(`# HELP ${name} ${escapeOpenMetricsString(def.help)}\n`);
}

/** The OpenMetrics MetricFamily name: a counter's name without `_total`. */
export function baseName(def: Pick<FamilyDef, 'name' | 'type'>): string {
  return def.type === 'counter' && def.name.endsWith('_total') ? def.name.slice(0, -'_total'.length) : def.name;
}

const LABEL_SPECIALS = /[\\"\n]/;

/** Label values, both formats: backslash, double quote and line feed. */
function escapeLabelValue(value: string): string {
  if (!LABEL_SPECIALS.test(value)) return value;
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** Text 0.0.4 HELP: only backslash and line feed are escapes there. */
function escapeTextHelp(help: string): string {
  return help.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'));
}

/** OpenMetrics escaped-string (HELP): a raw `"` is not a normal-char either. */
function escapeOpenMetricsString(help: string): string {
  return escapeLabelValue(help);
}

/**
 * Both formats read the same numbers: integers print without exponent below
 * 1e21 (JavaScript's shortest round-trip form), and the specials are spelled
 * as the OpenMetrics ABNF and Go's ParseFloat both accept.
 */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** OpenMetrics timestamps are seconds; printed exactly from whole milliseconds. */
export function formatOpenMetricsTimestamp(ms: number): string {
  const whole = Math.round(ms);
  const abs = Math.abs(whole);
  const seconds = Math.floor(abs / 1000);
  const millis = abs % 1000;
  const fraction = millis === 0 ? '' : `.${String(millis).padStart(3, '0').replace(/0+$/, '')}`;
  return `${whole < 0 ? '-' : ''}${seconds}${fraction}`;
}

export function compareSeries(a: SeriesSnapshot, b: SeriesSnapshot): number {
  const n = Math.min(a.labelValues.length, b.labelValues.length);
  for (let i = 0; i < n; i++) {
    const c = compareStrings(a.labelValues[i] ?? '', b.labelValues[i] ?? '');
    if (c !== 0) return c;
  }
  return a.labelValues.length - b.labelValues.length;
}

/** Code-unit order: locale-independent, so output never depends on the host. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
