// Vocabularies, limits and result codes of the live-acceleration order rules.
// Where the vendor document leaves a value open, the choice is made here once
// (and listed in docs/upstream-notes.md) so handlers and tests share it.

export const CARRIERS = ['联通', '移动', '电信'] as const;
export type Carrier = (typeof CARRIERS)[number];

/** One-character abbreviations of the 34 provincial-level divisions. */
export const PROVINCES: readonly string[] = [...'京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼港澳台'];

/** Longest accepted nickname, in Unicode code points ("e.g. too long" in the document). */
export const NICKNAME_MAX_CHARS = 32;

/** Accepted updates of one activated order; the document says a limit exists but not its value. */
export const DEFAULT_MAX_MODIFICATIONS = 3;

/** A uid (newUid for modify) that makes the item fail with "internal service error", so tests can reach that code. */
export const INTERNAL_ERROR_UID = 'sim-internal-error';

/** Joins uid and platform ID into the default nickname of a modify without one. */
export const NICKNAME_JOINER = '_';

/** Orders created at or after this hour (platform zone) activate a day later. */
export const ACTIVATION_CUTOFF_HOUR = 17;

export { DAY_MS, HOUR_MS } from '../../api/time.js';

/** Per-item result codes, create column. */
export const CREATE = {
  created: 1,
  pairMismatch: 2,
  badNickname: 3,
  badEndTime: 4,
  badRange: 5,
  overlap: 6,
  badProvince: 7,
  badCarrier: 8,
  internal: 9,
} as const;

/** Per-item result codes, update-unactivated column. */
export const UPDATE = {
  updated: 1,
  uidMismatch: 2,
  badNickname: 3,
  badEndTime: 4,
  badRange: 5,
  notFound: 6,
  activated: 7,
  expired: 8,
  badCarrier: 9,
  internal: 10,
} as const;

/** Per-item result codes, update-activated (modify) column. */
export const MODIFY = {
  modified: 1,
  uidMismatch: 2,
  newPairMismatch: 3,
  badNickname: 4,
  notFound: 5,
  pending: 6,
  notActive: 7,
  badExecuteTime: 8,
  limitReached: 9,
  internal: 10,
} as const;
