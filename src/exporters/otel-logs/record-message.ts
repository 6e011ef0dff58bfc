// One LogEvent as the LogRecord message protobufjs encodes (otlp-serializer.ts),
// built with as few objects per event as its generated encoder allows: every
// object here is created and dropped per batch, and with the daemon's small
// young generation (src/cli/node-flags.ts) a batch's worth of them costs more
// in scavenges than in building (docs/benchmarks.md 12.3).
import type { LogEvent } from '../../collectors/index.js';
import { ATTRIBUTE_COUNT_LIMIT, ATTR_LOG_RECORD_UID, SEVERITY_NUMBERS } from './record.js';

/** A fixed64 as protobufjs takes it without the `long` package: two unsigned 32-bit halves. */
interface Fixed64 {
  readonly low: number;
  readonly high: number;
  readonly unsigned: true;
}

const NANOS_PER_MS = 1_000_000;
const NANOS_PER_SECOND = 1_000_000_000;
/** 10^9 = 2^9 * 1,953,125: seconds * 1,953,125 stays an exact double for |seconds| below about 4.6e9 (years 1824 to 2116). */
const NANOS_PER_SECOND_ODD = 1_953_125;
const TWO_9 = 2 ** 9;
const TWO_23 = 2 ** 23;
const TWO_32 = 2 ** 32;

/**
 * Epoch ms -> unix nanoseconds as fixed64 halves, exactly what the SDK sends
 * for msToHrTime(ms) (record.ts: the same rounding and carry), without a
 * BigInt per time: seconds * 10^9 is split as (seconds * 1,953,125) * 2^9,
 * whose high and low 32-bit halves are exact double arithmetic. BigInt only
 * outside that range, where the halves would not be exact (NaN throws there,
 * as the SDK's conversion does).
 */
function nanosOfMs(ms: number): Fixed64 {
  let seconds = Math.floor(ms / 1000);
  let nanos = Math.round((ms - seconds * 1000) * NANOS_PER_MS);
  if (nanos >= NANOS_PER_SECOND) {
    seconds += 1;
    nanos -= NANOS_PER_SECOND;
  }
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
 * One attribute as the generated encoders read it: a KeyValue (`key`,
 * `value`) that is its own AnyValue (`value` points back at the slot; the
 * AnyValue encoder reads only the oneof fields, and skips a null one). One
 * shape for every type, so the slots can be reused.
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

/**
 * The attributes of the record being encoded, in slots reused from record to
 * record: protobufjs encodes the records one after the other, each reading
 * its `attributes` (RecordMessage's getter) for field 6, so one record's
 * attributes exist at a time instead of a whole batch's (about 30 objects
 * per event).
 */
class AttributeSlots {
  private owner: RecordMessage | undefined;
  private readonly slots: AttributeSlot[] = [];

  /**
   * `record`'s attributes as toReadableLogRecords orders them: `log.record.uid`
   * first, then the event's own in order (an empty key and a second uid left
   * out), at most ATTRIBUTE_COUNT_LIMIT, the rest counted on the record as
   * dropped (field 7, which the encoder reads after field 6). The encoder
   * reads the getter once per element; filled once per record.
   */
  fill(record: RecordMessage, event: LogEvent): AttributeSlot[] {
    if (this.owner === record) return this.slots;
    this.owner = record;
    this.set(0, ATTR_LOG_RECORD_UID, event.uid);
    let count = 1;
    let dropped = 0;
    const source = event.attributes;
    for (const key in source) {
      if (key === ATTR_LOG_RECORD_UID || key === '' || !Object.hasOwn(source, key)) continue;
      if (count >= ATTRIBUTE_COUNT_LIMIT) dropped++;
      else this.set(count++, key, source[key] as LogEvent['attributes'][string]);
    }
    this.slots.length = count;
    record.droppedAttributesCount = dropped;
    return this.slots;
  }

  private set(index: number, key: string, value: LogEvent['attributes'][string]): void {
    let slot = this.slots[index];
    if (slot === undefined) {
      slot = { key, value: null, stringValue: null, boolValue: null, intValue: null, doubleValue: null, arrayValue: null };
      slot.value = slot;
      this.slots[index] = slot;
    }
    const integer = typeof value === 'number' && isInt64(value);
    slot.key = key;
    slot.stringValue = typeof value === 'string' ? value : null;
    slot.boolValue = typeof value === 'boolean' ? value : null;
    slot.intValue = integer ? value : null;
    slot.doubleValue = typeof value === 'number' && !integer ? value : null;
    slot.arrayValue = Array.isArray(value) ? { values: value.map(anyValue) } : null;
  }
}

/**
 * The LogRecord the SDK encodes for toReadableLogRecords' record of `event`.
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

  constructor(private readonly event: LogEvent, private readonly slots: AttributeSlots) {
    this.timeUnixNano = nanosOfMs(event.timestampMs);
    this.observedTimeUnixNano = nanosOfMs(event.observedMs);
    this.severityNumber = SEVERITY_NUMBERS[event.severity];
    this.severityText = event.severityText;
    this.body = { stringValue: event.body };
    this.eventName = event.eventName;
  }

  get attributes(): AttributeSlot[] {
    return this.slots.fill(this, this.event);
  }
}

/** The LogRecord messages of one batch, for one encode (they share one set of attribute slots). */
export function recordMessages(events: readonly LogEvent[]): RecordMessage[] {
  const slots = new AttributeSlots();
  return events.map((event) => new RecordMessage(event, slots));
}
