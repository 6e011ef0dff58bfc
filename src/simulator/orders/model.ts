// The simulator's stored shapes. Status and the current binding are not
// stored: they are derived from these facts and the request clock (timing.ts).
import type { Carrier } from './constants.js';

/** A uid bound to a platform ID; creating or rebinding needs such a pair. */
export interface Identity {
  readonly uid: string;
  readonly platformId: string;
  readonly nickName: string | null;
}

export type PlatformUser = Identity;

/** An accepted update of an activated order, effective from `effectiveAt`. */
export interface IdentityChange extends Identity {
  /** executeTime as sent, `yyyy-MM-dd`. */
  readonly executeDate: string;
  readonly effectiveAt: number;
}

export interface Order {
  readonly orderId: string;
  readonly createdAt: number;
  readonly activatesAt: number;
  /** First instant without service: 00:00 after the end date. */
  expiresAt: number;
  /** The binding as created (an unactivated update may change the nickname). */
  identity: Identity;
  source: Carrier;
  province: string;
  isRenew: boolean;
  /** Accepted updates of the activated order, oldest first. */
  readonly changes: IdentityChange[];
}

/** What a caller supplies to store an order; the book assigns the ID. */
export type NewOrder = Omit<Order, 'orderId' | 'changes'>;

export interface QualityReport {
  /** An integer, as in the document's sample, though the field is typed string. */
  readonly dataId: number;
  readonly uid: string;
  readonly image: string;
  readonly message: string;
  readonly date: string;
  readonly createTime: string;
  readonly createdAt: number;
}
