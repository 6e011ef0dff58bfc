// One LogEvent as the LogRecord message protobufjs encodes (otlp-serializer.ts):
// record.ts's mapping (recordFields, recordAttributes) written in the
// message's own types, with as few objects per event as its generated encoder
// allows: every object here is created and dropped per record, and with the
// daemon's small young generation (src/cli/node-flags.ts) they cost more in
// scavenges than in building (section 12.3 of `git show 7888197:docs/benchmarks.md`).
import type { HrTime } from '@opentelemetry/api';
import protobuf from 'protobufjs';
import type { LogEvent } from '../../forwarder/index.js';
import { ATTR_LOG_RECORD_UID, recordAttributes, recordFields } from './record.js';

/** A fixed64 as protobufjs takes it without the `long` package: two unsigned 32-bit halves. */
interface Fixed64 {
  readonly low: number;
  readonly high: number;
  readonly unsigned: true;
}

/** 10^9 = 2^9 * 1,953,125: seconds * 1,953,125 stays an exact double for |seconds| below about 4.6e9 (years 1824 to 2116). */
const NANOS_PER_SECOND_ODD = 1_953_125;
const TWO_9 = 2 ** 9;
const TWO_23 = 2 ** 23;
const TWO_32 = 2 ** 32;

/**
 * An HrTime -> unix nanoseconds as fixed64 halves, exactly what the SDK sends
 * for it, without a BigInt per time: seconds * 10^9 is split as
 * (seconds * 1,953,125) * 2^9, whose high and low 32-bit halves are exact
 * double arithmetic. BigInt only outside that range, where the halves would
 * not be exact (NaN throws there, as the SDK's conversion does).
 */
function nanosOf(time: HrTime): Fixed64 {
  const seconds = time[0];
  const nanos = time[1];
  const scaled = seconds * NANOS_PER_SECOND_ODD;
  if (!Number.isSafeInteger(scaled)) return bigNanos(seconds, nanos);
  // total = scaled * 2^9 + nanos; scaled = high * 2^23 + rest, so total = high * 2^32 + rest * 2^9 + nanos.
  let high = Math.floor(scaled / TWO_23);
  let low = (scaled - high * TWO_23) * TWO_9 + nanos;
  if (low >= TWO_32) {
    low -= TWO_32;
    high += 1;
  }
  return { low, high: high >>> 0, unsigned: true };
}

/** Two's complement mod 2^64 for a time before 1970, as the BigInt conversion always sent it. */
function bigNanos(seconds: number, nanos: number): Fixed64 {
  const total = BigInt(seconds) * 1_000_000_000n + BigInt(nanos);
  return { low: Number(total & 0xffff_ffffn), high: Number((total >> 32n) & 0xffff_ffffn), unsigned: true };
}

/** int64's range: an integer outside it goes as a double, as the SDK sends it. */
const MIN_INT64 = -(2 ** 63);
const MAX_INT64 = 2 ** 63;

function isInt64(value: number): boolean {
  return Number.isInteger(value) && value >= MIN_INT64 && value < MAX_INT64;
}

export type AnyValueMessage =
  | Record<string, never>
  | { readonly stringValue: string }
  | { readonly boolValue: boolean }
  | { readonly intValue: number }
  | { readonly doubleValue: number }
  | { readonly arrayValue: { readonly values: AnyValueMessage[] } };

/** What the SDK's writeAnyValue writes for each type a LogEvent or the resource carries; anything else is an empty AnyValue, as there. */
export function anyValue(value: unknown): AnyValueMessage {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return isInt64(value) ? { intValue: value } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  return {};
}

/**
 * `writer` from its start, ready for the next encode; a new one if an encode
 * ever stopped half-way (its forks still open: reset() would only pop one).
 */
export function freshWriter(writer: protobuf.Writer): protobuf.Writer {
  return writer.states?.length ? protobuf.Writer.create() : writer.reset();
}

/**
 * One attribute as the generated KeyValue encoder reads it: a KeyValue
 * (`key`, `value`) that is its own AnyValue (`value` points back at the slot;
 * the AnyValue encoder reads only the oneof fields, and skips a null one).
 */
interface AttributeSlot {
  key: string;
  value: AttributeSlot | null;
  stringValue: string | null;
  boolValue: boolean | null;
  intValue: number | null;
  doubleValue: number | null;
  arrayValue: { readonly values: AnyValueMessage[] } | null;
}

type AttributeValue = LogEvent['attributes'][string];

/** A key's encoded attributes by value (a one-string list apart: it encodes otherwise than the string), and how they served. */
interface KeyCache {
  readonly values: Map<string | number | boolean, Uint8Array>;
  readonly lists: Map<string, Uint8Array>;
  hits: number;
  misses: number;
  /** Too many values for a cache to pay (a client address in a botnet, a query): encoded every time. */
  off: boolean;
}

/**
 * Most values one key keeps encoded. At this many the key's cache is emptied
 * if it served more than it missed, and given up otherwise: a key whose
 * values rarely repeat (client.address in a botnet, url.query) costs a
 * lookup and a miss, never the memory of every value.
 */
const MAX_VALUES_PER_KEY = 1024;

/**
 * Each attribute as the bytes of its encoded KeyValue, which the record's
 * attributes field (field 6, `repeated KeyValue`) carries length-delimited,
 * exactly as a `repeated bytes` field would (otlp-serializer.ts encodes the
 * records with that view of the official LogRecord). Most of a deny event's
 * attributes repeat from event to event (the method, the rule and its
 * texts, the geo fields, the action, the policy): their KeyValues are
 * encoded by protobufjs once and copied after that, which was most of the
 * serializer's time (section 12.7 of `git show 7888197:docs/benchmarks.md`). The others are
 * encoded per record into a scratch writer, through one reused slot.
 */
export class AttributeEncoder {
  private readonly caches = new Map<string, KeyCache>();
  private scratch = protobuf.Writer.create();
  private readonly slot: AttributeSlot = { key: '', value: null, stringValue: null, boolValue: null, intValue: null, doubleValue: null, arrayValue: null };
  /** The record whose attributes `encoded` holds. */
  private owner: RecordMessage | undefined;
  private readonly encoded: Uint8Array[] = [];
  /** How many of `encoded` are the owner's so far. */
  private count = 0;

  constructor(private readonly keyValueType: protobuf.Type) {
    this.slot.value = this.slot;
  }

  /**
   * `record`'s attributes, as recordAttributes gives them, those the limit
   * dropped counted on the record (field 7, which the encoder reads after
   * field 6). The encoder reads the getter more than once per record; one
   * record's attributes exist at a time.
   */
  fill(record: RecordMessage, event: LogEvent): Uint8Array[] {
    if (this.owner === record) return this.encoded;
    this.owner = record;
    // The scratch bytes of the last record are copied out of it by now.
    this.scratch = freshWriter(this.scratch);
    this.count = 0;
    record.droppedAttributesCount = recordAttributes(event, this.put);
    this.encoded.length = this.count;
    return this.encoded;
  }

  /** The next attribute of the owner: its uid is never the same twice, so it is not cached. */
  private readonly put = (key: string, value: AttributeValue): void => {
    this.encoded[this.count++] = key === ATTR_LOG_RECORD_UID ? this.uncached(key, value) : this.attribute(key, value);
  };

  private attribute(key: string, value: AttributeValue): Uint8Array {
    const list = Array.isArray(value);
    if (list && !(value.length === 1 && typeof value[0] === 'string')) return this.uncached(key, value);
    let cache = this.caches.get(key);
    if (cache === undefined) this.caches.set(key, (cache = { values: new Map(), lists: new Map(), hits: 0, misses: 0, off: false }));
    if (cache.off) return this.uncached(key, value);
    const lookup = list ? (value[0] as string) : (value as string | number | boolean);
    const known = list ? cache.lists.get(lookup as string) : cache.values.get(lookup);
    if (known !== undefined) {
      cache.hits++;
      return known;
    }
    cache.misses++;
    if (cache.values.size + cache.lists.size >= MAX_VALUES_PER_KEY) {
      cache.values.clear();
      cache.lists.clear();
      cache.off = cache.hits < cache.misses;
      cache.hits = 0;
      cache.misses = 0;
      if (cache.off) return this.uncached(key, value);
    }
    // A copy of its own: the scratch buffer is written over by the next record.
    const bytes = new Uint8Array(this.uncached(key, value));
    if (list) cache.lists.set(lookup as string, bytes);
    else cache.values.set(lookup, bytes);
    return bytes;
  }

  /** The KeyValue encoded into the scratch writer after this record's others (a view of it, valid until the next record). */
  private uncached(key: string, value: AttributeValue): Uint8Array {
    const slot = this.slot;
    const integer = typeof value === 'number' && isInt64(value);
    slot.key = key;
    slot.stringValue = typeof value === 'string' ? value : null;
    slot.boolValue = typeof value === 'boolean' ? value : null;
    slot.intValue = integer ? value : null;
    slot.doubleValue = typeof value === 'number' && !integer ? value : null;
    slot.arrayValue = Array.isArray(value) ? { values: value.map(anyValue) } : null;
    const start = this.scratch.pos;
    this.keyValueType.encode(slot, this.scratch);
    return this.scratch.buf.subarray(start, this.scratch.pos);
  }
}

/**
 * `event`'s LogRecord (recordFields, recordAttributes) as the official message
 * (field for field what the SDK encodes for toReadableLogRecord's record).
 * Zero severity and empty texts are left out by the encoder, as by the SDK's.
 * The encoder checks every other field as an own property; `attributes` it
 * reads through the getter, which fills the shared slots.
 */
class RecordMessage {
  readonly timeUnixNano: Fixed64;
  readonly observedTimeUnixNano: Fixed64;
  readonly severityNumber: number;
  readonly severityText: string;
  readonly body: AnyValueMessage;
  readonly eventName: string;
  droppedAttributesCount = 0;

  constructor(private readonly event: LogEvent, private readonly encoder: AttributeEncoder) {
    const fields = recordFields(event);
    this.timeUnixNano = nanosOf(fields.hrTime);
    this.observedTimeUnixNano = nanosOf(fields.hrTimeObserved);
    this.severityNumber = fields.severityNumber;
    this.severityText = fields.severityText;
    this.body = { stringValue: fields.body };
    this.eventName = fields.eventName;
  }

  get attributes(): Uint8Array[] {
    return this.encoder.fill(this, this.event);
  }
}

/** One event's LogRecord message, for an encode of that record alone. */
export function recordMessage(event: LogEvent, encoder: AttributeEncoder): RecordMessage {
  return new RecordMessage(event, encoder);
}
