// Decodes an OTLP metrics export request apart from the code under test: protobuf with Google's protoc
// (--decode, over the vendored official schema) and OTLP/JSON by hand, both into one plain structure.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import type { OtlpEncoding } from './otlp-decode.js';

type AttributeValue = string | number | boolean;
type Attributes = Record<string, AttributeValue>;
type MetricKind = 'sum' | 'gauge' | 'histogram';
type Temporality = 'cumulative' | 'delta';

/** One NumberDataPoint or HistogramDataPoint. */
interface ReceivedPoint {
  readonly attributes: Attributes;
  /** fixed64 on the wire, a decimal string (or a number) in OTLP/JSON: exact here, above 2^53 too. */
  readonly startTimeUnixNano: bigint;
  readonly timeUnixNano: bigint;
  /** Number points: as_double, or as_int as a number (rounded beyond 2^53; intValue is exact). */
  readonly value?: number;
  /** Number points sent as_int only: the exact integer. */
  readonly intValue?: bigint;
  /** Histogram points: count (0 when absent), sum and min/max when present, the buckets (possibly empty). */
  readonly count?: number;
  readonly sum?: number;
  readonly min?: number;
  readonly max?: number;
  readonly bucketCounts?: number[];
  readonly explicitBounds?: number[];
  /** DataPointFlags, only when not 0 (1: no recorded value). */
  readonly flags?: number;
}

interface ReceivedMetric {
  readonly name: string;
  readonly description: string;
  readonly unit: string;
  readonly kind: MetricKind;
  /** Sums and histograms; absent for gauges, and for AGGREGATION_TEMPORALITY_UNSPECIFIED. */
  readonly temporality?: Temporality;
  /** Sums only. */
  readonly monotonic?: boolean;
  readonly points: ReceivedPoint[];
}

interface ReceivedScope {
  readonly name: string;
  readonly version: string;
  readonly attributes: Attributes;
  /** ScopeMetrics.schema_url; '' when absent. */
  readonly schemaUrl: string;
  readonly metrics: ReceivedMetric[];
}

interface ReceivedResource {
  readonly attributes: Attributes;
  /** ResourceMetrics.schema_url; '' when absent. */
  readonly schemaUrl: string;
  readonly scopes: ReceivedScope[];
}

/** An ExportMetricsServiceRequest as plain data, the same from either encoding. */
export interface ReceivedMetricsRequest {
  readonly resources: ReceivedResource[];
}

/** The official opentelemetry-proto files (proto/, unchanged upstream); the files import each other from this root. */
const PROTO_ROOT = fileURLToPath(new URL('../../proto/', import.meta.url));
const SERVICE_FILE = 'opentelemetry/proto/collector/metrics/v1/metrics_service.proto';
const REQUEST_TYPE = 'opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest';

/** ExportMetricsServiceRequest from the same files, by protobufjs: for tests to build request bodies, not to read them. */
export function officialMetricsRequestType(): protobuf.Type {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
  root.loadSync(SERVICE_FILE, { keepCase: false });
  return root.lookupType(REQUEST_TYPE);
}

interface ProtocOptions {
  /** Default: $PROTOC, else `protoc` on PATH. */
  readonly bin?: string;
  readonly timeoutMs?: number;
}

/**
 * Decodes a protobuf request body with `protoc --decode` and reads its text format. Rejects when protoc
 * refuses the body (with protoc's stderr), when protoc is missing, and when the body holds fields the
 * schema does not know or values this structure cannot carry (summaries, array attributes, ...).
 */
export async function decodeMetricsWithProtoc(body: Uint8Array, options: ProtocOptions = {}): Promise<ReceivedMetricsRequest> {
  const text = await runProtoc(body, options);
  return readRequest(parseTextFormat(text), 'ExportMetricsServiceRequest');
}

/** Decodes an OTLP/JSON request body (camelCase keys, 64-bit integers as strings or numbers, enums as integers). */
export function decodeMetricsJson(body: Uint8Array): ReceivedMetricsRequest {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  // JSON.parse would round an int64 written as a number; as a string it stays exact.
  const request: unknown = JSON.parse(quoteLongIntegers(text));
  return readRequest(request, 'ExportMetricsServiceRequest');
}

/** Decodes a body in the encoding its content type named: protobuf by protoc, JSON by hand. */
export async function decodeMetricsRequest(encoding: OtlpEncoding, body: Uint8Array): Promise<ReceivedMetricsRequest> {
  return encoding === 'protobuf' ? decodeMetricsWithProtoc(body) : decodeMetricsJson(body);
}

/** One row per data point, with its metric and resource, for grouping by series. */
interface FlatPoint extends Omit<ReceivedPoint, 'startTimeUnixNano' | 'timeUnixNano'> {
  readonly resource: Attributes;
  readonly scope: string;
  readonly metric: string;
  readonly description: string;
  readonly unit: string;
  readonly kind: MetricKind;
  readonly temporality?: Temporality;
  readonly monotonic?: boolean;
  /** The metric's name and the point's attributes sorted by key, e.g. `m{code="200",n=3}`: one string per series. */
  readonly series: string;
  readonly startNs: bigint;
  readonly timeNs: bigint;
  /** The times in milliseconds: exact for whole milliseconds, the sub-millisecond part as a fraction. */
  readonly startMs: number;
  readonly timeMs: number;
}

export function flattenPoints(request: ReceivedMetricsRequest): FlatPoint[] {
  const rows: FlatPoint[] = [];
  for (const resource of request.resources) {
    for (const scope of resource.scopes) {
      for (const metric of scope.metrics) {
        for (const point of metric.points) {
          const { startTimeUnixNano, timeUnixNano, ...values } = point;
          rows.push({
            resource: resource.attributes,
            scope: scope.name,
            metric: metric.name,
            description: metric.description,
            unit: metric.unit,
            kind: metric.kind,
            ...(metric.temporality === undefined ? {} : { temporality: metric.temporality }),
            ...(metric.monotonic === undefined ? {} : { monotonic: metric.monotonic }),
            series: seriesKey(metric.name, point.attributes),
            startNs: startTimeUnixNano,
            timeNs: timeUnixNano,
            startMs: nanosToMs(startTimeUnixNano),
            timeMs: nanosToMs(timeUnixNano),
            ...values,
          });
        }
      }
    }
  }
  return rows;
}

function seriesKey(name: string, attributes: Attributes): string {
  const pairs = Object.keys(attributes)
    .sort()
    .map((key) => `${key}=${JSON.stringify(attributes[key])}`);
  return `${name}{${pairs.join(',')}}`;
}

function nanosToMs(nanos: bigint): number {
  return Number(nanos / 1_000_000n) + Number(nanos % 1_000_000n) / 1e6;
}

// ---------------------------------------------------------------------------------------------
// protoc

function runProtoc(body: Uint8Array, options: ProtocOptions): Promise<string> {
  const bin = options.bin ?? process.env.PROTOC ?? 'protoc';
  const timeoutMs = options.timeoutMs ?? 20_000;
  const args = [`--decode=${REQUEST_TYPE}`, `--proto_path=${PROTO_ROOT}`, SERVICE_FILE];
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`protoc --decode did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        error.code === 'ENOENT'
          ? new Error(`${bin} not found: run scripts/install-test-deps.sh (Debian package "protobuf-compiler") or set PROTOC`, { cause: error })
          : error,
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString('utf8').trim();
      if (code !== 0) {
        reject(new Error(`protoc could not decode the body (${body.length} bytes) as an ExportMetricsServiceRequest (exit ${code ?? signal}): ${stderr}`));
        return;
      }
      // Bytes outside printable ASCII arrive escaped, but read each byte as one character whatever protoc does:
      // the string reader turns them back into bytes and decodes those as UTF-8.
      resolve(Buffer.concat(out).toString('latin1'));
    });
    // protoc exits early on an unreadable body; its exit code says so, not EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(body);
  });
}

// ---------------------------------------------------------------------------------------------
// The text format, as protoc prints a message: `field: scalar` and `field { ... }`, a repeated field once per element.

/** An unquoted scalar of the text format: a number, an enum name, true or false. */
class Bare {
  constructor(readonly text: string) {}
}

/** A message of the text format: field name in lowerCamelCase (like OTLP/JSON's keys) -> its values in order. */
type TextMessage = Record<string, unknown[]>;

type Token = { kind: 'punct'; text: string } | { kind: 'string'; value: string } | { kind: 'bare'; text: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
      i++;
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if ('{}<>[]:,;'.includes(c)) {
      tokens.push({ kind: 'punct', text: c });
      i++;
    } else if (c === '"' || c === "'") {
      const [value, end] = readQuoted(text, i);
      // Adjacent literals concatenate, as in C.
      const last = tokens.at(-1);
      if (last?.kind === 'string') last.value += value;
      else tokens.push({ kind: 'string', value });
      i = end;
    } else {
      const bare = /[A-Za-z0-9_.+-]+/y;
      bare.lastIndex = i;
      const match = bare.exec(text);
      if (match === null) throw new Error(`protoc text format: unexpected ${JSON.stringify(c)} at offset ${i}`);
      tokens.push({ kind: 'bare', text: match[0] });
      i += match[0].length;
    }
  }
  return tokens;
}

const SIMPLE_ESCAPES: Record<string, number> = { n: 10, r: 13, t: 9, a: 7, b: 8, f: 12, v: 11, '\\': 92, "'": 39, '"': 34, '?': 63 };

/** A quoted literal at `start` -> its text (the bytes, C escapes undone, decoded as UTF-8) and the offset after it. */
function readQuoted(text: string, start: number): [string, number] {
  const quote = text[start];
  const bytes: number[] = [];
  let i = start + 1;
  for (;;) {
    if (i >= text.length) throw new Error(`protoc text format: unterminated string at offset ${start}`);
    const c = text[i] as string;
    if (c === quote) break;
    if (c === '\n') throw new Error(`protoc text format: line break in the string at offset ${start}`);
    if (c !== '\\') {
      bytes.push(c.charCodeAt(0) & 0xff);
      i++;
      continue;
    }
    const e = text[i + 1] ?? '';
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      bytes.push(simple);
      i += 2;
    } else if (/[0-7]/.test(e)) {
      const octal = /[0-7]{1,3}/y;
      octal.lastIndex = i + 1;
      const digits = (octal.exec(text) as RegExpExecArray)[0];
      bytes.push(parseInt(digits, 8) & 0xff);
      i += 1 + digits.length;
    } else if (e === 'x' || e === 'X') {
      const hex = /[0-9A-Fa-f]{1,2}/y;
      hex.lastIndex = i + 2;
      const digits = hex.exec(text)?.[0];
      if (digits === undefined) throw new Error(`protoc text format: \\x without digits at offset ${i}`);
      bytes.push(parseInt(digits, 16));
      i += 2 + digits.length;
    } else {
      throw new Error(`protoc text format: unknown escape \\${e} at offset ${i}`);
    }
  }
  return [new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes)), i + 1];
}

const camel = (snake: string): string => snake.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** Parses protoc's text format into TextMessages; throws on a field number (a field the schema does not know). */
function parseTextFormat(text: string): TextMessage {
  const tokens = tokenize(text);
  let at = 0;
  const peek = (): Token | undefined => tokens[at];
  const isPunct = (token: Token | undefined, p: string): boolean => token?.kind === 'punct' && token.text === p;

  const scalar = (): unknown => {
    const token = tokens[at++];
    if (token?.kind === 'string') return token.value;
    if (token?.kind === 'bare') return new Bare(token.text);
    throw new Error(`protoc text format: a value expected at token ${at - 1}`);
  };

  const message = (close: string | undefined): TextMessage => {
    const fields: TextMessage = {};
    for (;;) {
      const token = peek();
      if (token === undefined) {
        if (close !== undefined) throw new Error(`protoc text format: missing ${close}`);
        return fields;
      }
      if (close !== undefined && isPunct(token, close)) {
        at++;
        return fields;
      }
      if (token.kind !== 'bare') throw new Error(`protoc text format: a field name expected at token ${at}`);
      at++;
      if (/^\d+$/.test(token.text)) {
        throw new Error(`the body holds field number ${token.text}, which the schema does not know (protoc printed it as an unknown field)`);
      }
      const name = camel(token.text);
      if (isPunct(peek(), ':')) at++;
      const values: unknown[] = (fields[name] ??= []);
      const next = peek();
      if (isPunct(next, '{') || isPunct(next, '<')) {
        at++;
        values.push(message(isPunct(next, '{') ? '}' : '>'));
      } else if (isPunct(next, '[')) {
        at++;
        while (!isPunct(peek(), ']')) {
          values.push(isPunct(peek(), '{') ? (at++, message('}')) : scalar());
          if (isPunct(peek(), ',')) at++;
        }
        at++;
      } else {
        values.push(scalar());
      }
      if (isPunct(peek(), ',') || isPunct(peek(), ';')) at++;
    }
  };
  return message(undefined);
}

// ---------------------------------------------------------------------------------------------
// OTLP/JSON: int64 literals past 2^53 become strings before JSON.parse rounds them.

function quoteLongIntegers(text: string): string {
  const number = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      number.lastIndex = i;
      const literal = number.exec(text)?.[0] ?? c;
      // Up to 15 digits is always below 2^53; longer integers keep their digits as a string.
      if (/^-?\d{16,}$/.test(literal)) {
        out += `${text.slice(copied, i)}"${literal}"`;
        copied = i + literal.length;
      }
      i += literal.length;
    } else {
      i++;
    }
  }
  return out + text.slice(copied);
}

// ---------------------------------------------------------------------------------------------
// One walker for both: JSON objects and TextMessages share the camelCase keys; in a TextMessage every
// field is a list, in JSON only the repeated ones are.

type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Bare);

function all(message: Obj, key: string): unknown[] {
  const value = message[key];
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

function one(message: Obj, key: string, where: string): unknown {
  const values = all(message, key);
  if (values.length > 1) throw new Error(`${where}.${key}: ${values.length} values for a singular field`);
  return values[0];
}

function messages(message: Obj, key: string, where: string): Obj[] {
  return all(message, key).map((value, index) => {
    if (!isObj(value)) throw new Error(`${where}.${key}[${index}] is not a message`);
    return value;
  });
}

function sub(message: Obj, key: string, where: string): Obj | undefined {
  const value = one(message, key, where);
  if (value === undefined) return undefined;
  if (!isObj(value)) throw new Error(`${where}.${key} is not a message`);
  return value;
}

function str(value: unknown, where: string): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  throw new Error(`${where}: a string expected, got ${describe(value)}`);
}

function bool(value: unknown, where: string): boolean {
  if (value === undefined) return false;
  if (typeof value === 'boolean') return value;
  if (value instanceof Bare && (value.text === 'true' || value.text === 'false')) return value.text === 'true';
  throw new Error(`${where}: a boolean expected, got ${describe(value)}`);
}

/** An integer field (int64, fixed64, uint32...): a decimal string or number in JSON, a bare number from protoc. */
function integer(value: unknown, where: string): bigint {
  if (value === undefined) return 0n;
  const text = value instanceof Bare ? value.text : typeof value === 'string' ? value : typeof value === 'number' && Number.isInteger(value) ? String(value) : undefined;
  if (text === undefined || !/^-?\d+$/.test(text)) throw new Error(`${where}: an integer expected, got ${describe(value)}`);
  return BigInt(text);
}

function safeNumber(value: bigint, where: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new Error(`${where}: ${value} is beyond what a number holds exactly`);
  }
  return Number(value);
}

/** A double: a number (or "NaN", "Infinity", "-Infinity", a numeric string) in JSON; protoc prints inf, -inf, nan. */
function double(value: unknown, where: string): number {
  if (typeof value === 'number') return value;
  const text = value instanceof Bare ? value.text : typeof value === 'string' ? value : undefined;
  if (text !== undefined) {
    const special: Record<string, number> = { inf: Infinity, '-inf': -Infinity, nan: NaN, '-nan': NaN, Infinity: Infinity, '-Infinity': -Infinity, NaN: NaN };
    const known = special[text];
    if (known !== undefined) return known;
    if (/^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return Number(text);
  }
  throw new Error(`${where}: a double expected, got ${describe(value)}`);
}

/** An enum: its number (OTLP/JSON) or its name (protoc). */
function enumNumber(value: unknown, names: readonly string[], where: string): number {
  if (value === undefined) return 0;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (value instanceof Bare) {
    const index = names.indexOf(value.text);
    if (index >= 0) return index;
    if (/^\d+$/.test(value.text)) return Number(value.text);
  }
  throw new Error(`${where}: an enum value expected, got ${describe(value)}`);
}

const describe = (value: unknown): string => (value instanceof Bare ? value.text : JSON.stringify(value) ?? String(value));

/**
 * The fields of each message the walker reads, and those it knows and leaves (exemplars, metadata, dropped
 * counts). protoc prints no other; in JSON another key is a misspelt field (snake_case, say), refused rather
 * than read as absent.
 */
const FIELDS = {
  request: ['resourceMetrics'],
  resourceMetrics: ['resource', 'scopeMetrics', 'schemaUrl'],
  resource: ['attributes', 'droppedAttributesCount', 'entityRefs'],
  /**
   * The OpenTelemetry JS SDK's JSON serializer (otlp-transformer's
   * createResource) also writes the resource's schema URL inside `resource`,
   * a field the schema does not have there; OTLP/JSON receivers must ignore
   * unknown fields. Accepted only when it repeats ResourceMetrics.schemaUrl.
   */
  resourceInJson: ['attributes', 'droppedAttributesCount', 'entityRefs', 'schemaUrl'],
  scopeMetrics: ['scope', 'metrics', 'schemaUrl'],
  scope: ['name', 'version', 'attributes', 'droppedAttributesCount'],
  metric: ['name', 'description', 'unit', 'gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary', 'metadata'],
  sum: ['dataPoints', 'aggregationTemporality', 'isMonotonic'],
  gauge: ['dataPoints'],
  histogram: ['dataPoints', 'aggregationTemporality'],
  numberPoint: ['attributes', 'startTimeUnixNano', 'timeUnixNano', 'asDouble', 'asInt', 'exemplars', 'flags'],
  histogramPoint: ['attributes', 'startTimeUnixNano', 'timeUnixNano', 'count', 'sum', 'bucketCounts', 'explicitBounds', 'exemplars', 'flags', 'min', 'max'],
  keyValue: ['key', 'value', 'keyStrindex'],
} as const;

function known(message: Obj, fields: readonly string[], where: string): Obj {
  const unknown = Object.keys(message).filter((key) => !fields.includes(key));
  if (unknown.length > 0) throw new Error(`${where}: no field ${unknown.map((key) => JSON.stringify(key)).join(', ')} in this message`);
  return message;
}

const TEMPORALITIES = ['AGGREGATION_TEMPORALITY_UNSPECIFIED', 'AGGREGATION_TEMPORALITY_DELTA', 'AGGREGATION_TEMPORALITY_CUMULATIVE'] as const;

function readRequest(request: unknown, where: string): ReceivedMetricsRequest {
  if (!isObj(request)) throw new Error(`${where} is not an object`);
  known(request, FIELDS.request, where);
  return {
    resources: messages(request, 'resourceMetrics', where).map((rm, r) => {
      const at = `${where}.resourceMetrics[${r}]`;
      known(rm, FIELDS.resourceMetrics, at);
      const resource = known(sub(rm, 'resource', at) ?? {}, FIELDS.resourceInJson, `${at}.resource`);
      const schemaUrl = str(one(rm, 'schemaUrl', at), `${at}.schemaUrl`);
      if (resource.schemaUrl !== undefined && resource.schemaUrl !== schemaUrl) throw new Error(`${at}.resource.schemaUrl differs from ${at}.schemaUrl`);
      return {
        attributes: attributes(resource, `${at}.resource`),
        schemaUrl,
        scopes: messages(rm, 'scopeMetrics', at).map((sm, s) => readScope(sm, `${at}.scopeMetrics[${s}]`)),
      };
    }),
  };
}

function readScope(sm: Obj, at: string): ReceivedScope {
  known(sm, FIELDS.scopeMetrics, at);
  const scope = known(sub(sm, 'scope', at) ?? {}, FIELDS.scope, `${at}.scope`);
  return {
    name: str(one(scope, 'name', at), `${at}.scope.name`),
    version: str(one(scope, 'version', at), `${at}.scope.version`),
    attributes: attributes(scope, `${at}.scope`),
    schemaUrl: str(one(sm, 'schemaUrl', at), `${at}.schemaUrl`),
    metrics: messages(sm, 'metrics', at).map((m, i) => readMetric(m, `${at}.metrics[${i}]`)),
  };
}

function readMetric(metric: Obj, where: string): ReceivedMetric {
  const name = str(one(metric, 'name', where), `${where}.name`);
  const at = `${where} (${name})`;
  known(metric, FIELDS.metric, at);
  const base = {
    name,
    description: str(one(metric, 'description', at), `${at}.description`),
    unit: str(one(metric, 'unit', at), `${at}.unit`),
  };
  const kinds = ['sum', 'gauge', 'histogram', 'exponentialHistogram', 'summary'].filter((key) => all(metric, key).length > 0);
  if (kinds.length !== 1) throw new Error(`${at}: one of sum, gauge, histogram expected, found ${kinds.length === 0 ? 'no data' : kinds.join(' and ')}`);
  const kind = kinds[0] as string;
  const data = sub(metric, kind, at) as Obj;
  const dataAt = `${at}.${kind}`;
  if (kind === 'sum' || kind === 'gauge' || kind === 'histogram') known(data, FIELDS[kind], dataAt);
  const temporality = (): { temporality?: Temporality } => {
    const n = enumNumber(one(data, 'aggregationTemporality', dataAt), TEMPORALITIES, `${dataAt}.aggregationTemporality`);
    if (n === 1) return { temporality: 'delta' };
    if (n === 2) return { temporality: 'cumulative' };
    if (n === 0) return {};
    throw new Error(`${dataAt}.aggregationTemporality: unknown value ${n}`);
  };
  const points = messages(data, 'dataPoints', dataAt);
  switch (kind) {
    case 'sum':
      return {
        ...base,
        kind: 'sum',
        ...temporality(),
        monotonic: bool(one(data, 'isMonotonic', dataAt), `${dataAt}.isMonotonic`),
        points: points.map((p, i) => numberPoint(p, `${dataAt}.dataPoints[${i}]`)),
      };
    case 'gauge':
      return { ...base, kind: 'gauge', points: points.map((p, i) => numberPoint(p, `${dataAt}.dataPoints[${i}]`)) };
    case 'histogram':
      return { ...base, kind: 'histogram', ...temporality(), points: points.map((p, i) => histogramPoint(p, `${dataAt}.dataPoints[${i}]`)) };
    default:
      throw new Error(`${at}: ${kind} is not read by this decoder (sum, gauge and histogram are)`);
  }
}

function pointCommon(point: Obj, at: string): Pick<ReceivedPoint, 'attributes' | 'startTimeUnixNano' | 'timeUnixNano' | 'flags'> {
  const flags = safeNumber(integer(one(point, 'flags', at), `${at}.flags`), `${at}.flags`);
  return {
    attributes: attributes(point, at),
    startTimeUnixNano: integer(one(point, 'startTimeUnixNano', at), `${at}.startTimeUnixNano`),
    timeUnixNano: integer(one(point, 'timeUnixNano', at), `${at}.timeUnixNano`),
    ...(flags === 0 ? {} : { flags }),
  };
}

function numberPoint(point: Obj, at: string): ReceivedPoint {
  known(point, FIELDS.numberPoint, at);
  const asDouble = one(point, 'asDouble', at);
  const asInt = one(point, 'asInt', at);
  if (asDouble !== undefined && asInt !== undefined) throw new Error(`${at}: both asDouble and asInt`);
  if (asInt !== undefined) {
    const exact = integer(asInt, `${at}.asInt`);
    return { ...pointCommon(point, at), value: Number(exact), intValue: exact };
  }
  return { ...pointCommon(point, at), ...(asDouble === undefined ? {} : { value: double(asDouble, `${at}.asDouble`) }) };
}

function histogramPoint(point: Obj, at: string): ReceivedPoint {
  known(point, FIELDS.histogramPoint, at);
  const optionalDouble = (key: string): Record<string, number> => {
    const value = one(point, key, at);
    return value === undefined ? {} : { [key]: double(value, `${at}.${key}`) };
  };
  return {
    ...pointCommon(point, at),
    count: safeNumber(integer(one(point, 'count', at), `${at}.count`), `${at}.count`),
    ...optionalDouble('sum'),
    ...optionalDouble('min'),
    ...optionalDouble('max'),
    bucketCounts: all(point, 'bucketCounts').map((c, i) => safeNumber(integer(c, `${at}.bucketCounts[${i}]`), `${at}.bucketCounts[${i}]`)),
    explicitBounds: all(point, 'explicitBounds').map((b, i) => double(b, `${at}.explicitBounds[${i}]`)),
  };
}

/** The `attributes` KeyValues of a message; keys must be unique, values strings, booleans, ints (exact as numbers) or doubles. */
function attributes(message: Obj, where: string): Attributes {
  const out: Attributes = {};
  messages(message, 'attributes', where).forEach((kv, i) => {
    const at = `${where}.attributes[${i}]`;
    known(kv, FIELDS.keyValue, at);
    if (integer(one(kv, 'keyStrindex', at), `${at}.keyStrindex`) !== 0n) throw new Error(`${at}: key_strindex (a dictionary reference) in a metrics request`);
    const key = str(one(kv, 'key', at), `${at}.key`);
    if (Object.hasOwn(out, key)) throw new Error(`${at}: key ${JSON.stringify(key)} appears twice`);
    out[key] = anyValue(sub(kv, 'value', at), `${at} (${key})`);
  });
  return out;
}

function anyValue(value: Obj | undefined, at: string): AttributeValue {
  const keys = value === undefined ? [] : Object.keys(value).filter((key) => value[key] !== undefined && value[key] !== null);
  if (value === undefined || keys.length !== 1) throw new Error(`${at}: one value expected, found ${keys.length === 0 ? 'none' : keys.join(', ')}`);
  const kind = keys[0] as string;
  const v = one(value, kind, at);
  switch (kind) {
    case 'stringValue':
      return str(v, `${at}.stringValue`);
    case 'boolValue':
      return bool(v, `${at}.boolValue`);
    case 'intValue':
      return safeNumber(integer(v, `${at}.intValue`), `${at}.intValue`);
    case 'doubleValue':
      return double(v, `${at}.doubleValue`);
    default:
      throw new Error(`${at}: ${kind} is not an attribute value this decoder reads (string, bool, int, double)`);
  }
}
