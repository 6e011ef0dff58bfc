// A strict reader of the Prometheus text format 0.0.4 and OpenMetrics 1.0.0,
// for tests that must know exactly which series and label values an
// exposition holds. Stricter than Prometheus where that finds our bugs: every
// sample belongs to a family announced before it, families are contiguous,
// a label name appears once per sample, a series (name and label set) once
// per exposition, and a backslash in a label value starts one of the three
// escapes \\ \" \n and nothing else. Throws ExpositionSyntaxError with the
// line number on the first violation.

export type ExpositionFormat = 'text' | 'openmetrics';

export interface ExpositionSample {
  readonly name: string;
  /** In exposition order, values unescaped. */
  readonly labels: ReadonlyArray<readonly [string, string]>;
  /** As written: a float, NaN, +Inf or -Inf. */
  readonly value: string;
  readonly timestamp?: string;
}

export interface ExpositionFamily {
  readonly name: string;
  readonly type: string;
  readonly help?: string;
  readonly unit?: string;
  readonly samples: ExpositionSample[];
}

export class ExpositionSyntaxError extends Error {
  constructor(readonly line: number, message: string, readonly text: string) {
    super(`line ${line}: ${message}: ${JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text)}`);
    this.name = 'ExpositionSyntaxError';
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const FLOAT = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Inf|NaN)$/;
const TIMESTAMP: Readonly<Record<ExpositionFormat, RegExp>> = { text: /^-?\d+$/, openmetrics: /^-?\d+(?:\.\d+)?$/ };
const TYPES: Readonly<Record<ExpositionFormat, readonly string[]>> = {
  text: ['counter', 'gauge', 'histogram', 'summary', 'untyped'],
  openmetrics: ['counter', 'gauge', 'histogram', 'gaugehistogram', 'stateset', 'info', 'summary', 'unknown'],
};

/** Sample names a family of `type` may hold, in each format. */
function sampleNames(family: string, type: string, format: ExpositionFormat): string[] {
  const open = format === 'openmetrics';
  switch (type) {
    case 'counter': return open ? [`${family}_total`, `${family}_created`] : [family];
    case 'histogram': case 'gaugehistogram': return [`${family}_bucket`, `${family}_sum`, `${family}_count`, `${family}_created`, `${family}_gsum`, `${family}_gcount`];
    case 'summary': return [family, `${family}_sum`, `${family}_count`, `${family}_created`];
    case 'info': return [`${family}_info`];
    default: return [family];
  }
}

/** Reads a label value after its opening quote; returns the value and the index after the closing quote. */
function readQuoted(line: string, start: number, lineNo: number, escapes: ReadonlySet<string>): [string, number] {
  let out = '';
  for (let i = start; i < line.length; i++) {
    const c = line[i];
    if (c === '"') return [out, i + 1];
    if (c === '\\') {
      const next = line[i + 1];
      if (next === undefined || !escapes.has(next)) throw new ExpositionSyntaxError(lineNo, `invalid escape \\${next ?? ''}`, line);
      out += next === 'n' ? '\n' : next;
      i++;
      continue;
    }
    out += c;
  }
  throw new ExpositionSyntaxError(lineNo, 'unterminated label value', line);
}

const LABEL_ESCAPES = new Set(['\\', '"', 'n']);

function readHelp(text: string, format: ExpositionFormat, lineNo: number, line: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (format === 'openmetrics' && c === '"') throw new ExpositionSyntaxError(lineNo, 'unescaped " in HELP', line);
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = text[i + 1];
    const ok = next === '\\' || next === 'n' || (format === 'openmetrics' && next === '"');
    if (!ok) throw new ExpositionSyntaxError(lineNo, `invalid escape \\${next ?? ''} in HELP`, line);
    out += next === 'n' ? '\n' : next;
    i++;
  }
  return out;
}

function readSample(line: string, lineNo: number, format: ExpositionFormat): ExpositionSample {
  const name = METRIC_NAME.exec(line)?.[0];
  if (name === undefined) throw new ExpositionSyntaxError(lineNo, 'no metric name', line);
  let i = name.length;
  const labels: Array<[string, string]> = [];
  if (line[i] === '{') {
    i++;
    while (line[i] !== '}') {
      const label = LABEL_NAME.exec(line.slice(i))?.[0];
      if (label === undefined) throw new ExpositionSyntaxError(lineNo, 'bad label name', line);
      i += label.length;
      if (line.slice(i, i + 2) !== '="') throw new ExpositionSyntaxError(lineNo, `label ${label} without ="`, line);
      const [value, next] = readQuoted(line, i + 2, lineNo, LABEL_ESCAPES);
      if (labels.some(([l]) => l === label)) throw new ExpositionSyntaxError(lineNo, `label ${label} twice`, line);
      labels.push([label, value]);
      i = next;
      if (line[i] === ',') {
        i++;
        if (line[i] === '}') throw new ExpositionSyntaxError(lineNo, 'trailing comma', line);
      } else if (line[i] !== '}') {
        throw new ExpositionSyntaxError(lineNo, 'expected , or } after a label', line);
      }
    }
    i++;
  }
  if (line[i] !== ' ') throw new ExpositionSyntaxError(lineNo, 'expected one space before the value', line);
  const rest = line.slice(i + 1).split(' ');
  const [value, timestamp, extra] = rest;
  if (value === undefined || !FLOAT.test(value)) throw new ExpositionSyntaxError(lineNo, 'bad value', line);
  if (timestamp !== undefined && !TIMESTAMP[format].test(timestamp)) throw new ExpositionSyntaxError(lineNo, 'bad timestamp', line);
  if (extra !== undefined) throw new ExpositionSyntaxError(lineNo, 'trailing fields (exemplars are not expected)', line);
  return timestamp === undefined ? { name, labels, value } : { name, labels, value, timestamp };
}

export function readExposition(text: string, format: ExpositionFormat): ExpositionFamily[] {
  if (text !== '' && !text.endsWith('\n')) throw new ExpositionSyntaxError(0, 'no final line feed', text.slice(-40));
  const lines = text === '' ? [] : text.slice(0, -1).split('\n');
  if (format === 'openmetrics' && lines.at(-1) !== '# EOF') throw new ExpositionSyntaxError(lines.length, 'no # EOF at the end', lines.at(-1) ?? '');
  const families: ExpositionFamily[] = [];
  const seenFamilies = new Set<string>();
  const seenSeries = new Set<string>();
  let current: { name: string; type?: string; help?: string; unit?: string; samples: ExpositionSample[] } | undefined;
  const close = (): void => {
    if (current === undefined) return;
    if (current.type === undefined) throw new ExpositionSyntaxError(0, `family ${current.name} has no TYPE`, current.name);
    families.push({ name: current.name, type: current.type, samples: current.samples, ...(current.help === undefined ? {} : { help: current.help }), ...(current.unit === undefined ? {} : { unit: current.unit }) });
    current = undefined;
  };
  lines.forEach((line, index) => {
    const lineNo = index + 1;
    if (format === 'openmetrics' && line === '# EOF') {
      if (index !== lines.length - 1) throw new ExpositionSyntaxError(lineNo, '# EOF before the end', line);
      return;
    }
    if (line === '') {
      if (format === 'openmetrics') throw new ExpositionSyntaxError(lineNo, 'empty line', line);
      return;
    }
    const meta = /^# (HELP|TYPE|UNIT) ([a-zA-Z_:][a-zA-Z0-9_:]*)(?: (.*))?$/.exec(line);
    if (line.startsWith('#')) {
      if (meta === null) throw new ExpositionSyntaxError(lineNo, 'unexpected comment', line);
      const [, kind, name = '', arg] = meta;
      if (current?.name !== name) {
        close();
        if (seenFamilies.has(name)) throw new ExpositionSyntaxError(lineNo, `family ${name} is not contiguous`, line);
        seenFamilies.add(name);
        current = { name, samples: [] };
      }
      if (current.samples.length > 0) throw new ExpositionSyntaxError(lineNo, 'metadata after samples', line);
      if (kind === 'HELP') {
        if (current.help !== undefined) throw new ExpositionSyntaxError(lineNo, 'HELP twice', line);
        current.help = readHelp(arg ?? '', format, lineNo, line);
      } else if (kind === 'TYPE') {
        if (current.type !== undefined) throw new ExpositionSyntaxError(lineNo, 'TYPE twice', line);
        if (arg === undefined || !TYPES[format].includes(arg)) throw new ExpositionSyntaxError(lineNo, 'unknown type', line);
        current.type = arg;
      } else {
        if (format !== 'openmetrics') throw new ExpositionSyntaxError(lineNo, 'UNIT in the text format', line);
        if (arg === undefined || !name.endsWith(`_${arg}`)) throw new ExpositionSyntaxError(lineNo, 'UNIT is not the name suffix', line);
        current.unit = arg;
      }
      return;
    }
    const sample = readSample(line, lineNo, format);
    if (current?.type === undefined) throw new ExpositionSyntaxError(lineNo, 'sample outside a typed family', line);
    if (!sampleNames(current.name, current.type, format).includes(sample.name)) {
      throw new ExpositionSyntaxError(lineNo, `${sample.name} does not belong to ${current.type} ${current.name}`, line);
    }
    const id = JSON.stringify([sample.name, [...sample.labels].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
    if (seenSeries.has(id)) throw new ExpositionSyntaxError(lineNo, 'series repeated', line);
    seenSeries.add(id);
    current.samples.push(sample);
  });
  close();
  return families;
}

/** Label values by name of a read sample. */
export function labelsOf(sample: ExpositionSample): Record<string, string> {
  return Object.fromEntries(sample.labels);
}
