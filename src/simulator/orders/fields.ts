// Request reading shared by the order handlers. Problems with a field that has
// a per-item result code become that code; problems with no code of their own
// (the body, the batch array, an item that is not an object, a field of the
// wrong JSON type such as isRenew) reject the whole request before anything is
// written, so a batch is never half-applied by a malformed request.
import type { Carrier } from './constants.js';
import { CARRIERS, NICKNAME_MAX_CHARS, PROVINCES } from './constants.js';

export type Item = Readonly<Record<string, unknown>>;

export function isRecord(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ItemSpec {
  /** Field holding the batch, e.g. packOrder. */
  readonly key: string;
  /** Required boolean fields. */
  readonly booleans: readonly string[];
  /** Optional fields that, when present and not null, must be strings. */
  readonly strings: readonly string[];
}

/** The batch items, or the message of a request-level error. */
export function readItems(body: unknown, spec: ItemSpec): Item[] | string {
  if (!isRecord(body)) return 'request body must be a JSON object';
  const items = body[spec.key];
  if (!Array.isArray(items)) return `${spec.key} must be an array`;
  for (const [i, item] of items.entries()) {
    const problem = itemProblem(item, spec);
    if (problem) return `${spec.key}[${i}]: ${problem}`;
  }
  return items.filter(isRecord);
}

function itemProblem(item: unknown, spec: ItemSpec): string | undefined {
  if (!isRecord(item)) return 'must be an object';
  const notBoolean = spec.booleans.find((f) => typeof item[f] !== 'boolean');
  if (notBoolean) return `${notBoolean} must be a boolean`;
  const notString = spec.strings.find((f) => !isAbsent(item[f]) && typeof item[f] !== 'string');
  return notString ? `${notString} must be a string` : undefined;
}

/** Optional fields may be left out or sent as null. */
export function isAbsent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** 1 to NICKNAME_MAX_CHARS code points, not blank, no control characters. */
function isNickname(value: unknown): value is string {
  if (typeof value !== 'string' || value.trim() === '') return false;
  return [...value].length <= NICKNAME_MAX_CHARS && !/\p{Cc}/u.test(value);
}

/** An absent optional nickname is fine; a present one must meet the rules. */
export function isOptionalNickname(value: unknown): boolean {
  return isAbsent(value) || isNickname(value);
}

export function isCarrier(value: unknown): value is Carrier {
  return (CARRIERS as readonly unknown[]).includes(value);
}

export function isProvince(value: unknown): value is string {
  return typeof value === 'string' && PROVINCES.includes(value);
}
