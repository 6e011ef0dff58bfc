// Client ↔ simulator contract for the live-acceleration order operations
// (17–21) over real HTTP on loopback. Every per-item result code of create,
// update-unactivated and modify-activated is reached through the client's
// typed methods; where the client's own request validation blocks a trigger,
// the test shows the local ValidationError and that nothing was sent (the
// wire-level code is covered by test/simulator/orders*.test.ts). Then paging
// and filters of the order list and the live-quality reports, and the
// documented 10 requests/second.
//
// The harness pins the clock at its T0, 2026-03-02 12:00:00 (UTC+8), and
// resets the simulator before each test (same seed, same world), so each case
// starts from the seeded orders; a create at T0 activates at 2026-03-03 00:00.
// The simulator counts the 10 req/s on its own clock, and a fixed clock never
// leaves the current second: each test stays within 10 order calls (the reset
// clears the window) and gets a fresh client, whose limiter would otherwise
// carry waits from one test into the next.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EdgeClient, ValidationError, isApiError } from '../../src/api/index.js';
import type { OperationName, RequestOf } from '../../src/api/index.js';
import type { Carrier } from '../../src/api/schemas/common.js';
import type { LiveOrderRow } from '../../src/api/schemas/orders.js';
import type { ClientOptions } from '../../src/api/client.js';
import { CARRIERS, DEFAULT_MAX_MODIFICATIONS, INTERNAL_ERROR_UID } from '../../src/simulator/orders/constants.js';
import { DAY, LIMITED_TOKEN, T0, TOKEN, rejection, text, useContract } from './harness.js';

const TODAY = text(T0).slice(0, 10); // 2026-03-02
const ACTIVATION = `${text(T0 + DAY).slice(0, 10)} 00:00:00`; // 2026-03-03 00:00:00

type CreateItem = RequestOf<'createHostAcceleratePackOrder'>['packOrder'][number];
type UpdateItem = RequestOf<'updateHostAcceleratePackOrder'>['updateOrders'][number];
type ModifyItem = RequestOf<'modifyHostAcceleratePackOrder'>['modifyOrders'][number];

// ------------------------------------------------------------------ set-up

const userSchema = z.object({ uid: z.string(), platformId: z.string(), nickName: z.string().nullable() });
type User = z.infer<typeof userSchema>;

const contract = useContract({ sim: { seed: 7 } });
let client: EdgeClient;
let users: User[];

/** One attempt, no retry: what each call does is what the simulator answered once. */
function newClient(apiUrl: string, extra: Partial<ClientOptions> = {}): EdgeClient {
  return new EdgeClient({ apiUrl, token: TOKEN, retry: { attempts: 1, minDelayMs: 1, maxDelayMs: 1 }, ...extra });
}

/** The platform users (uid/platformId pairs): no operation lists them, the admin state does. */
async function adminUsers(): Promise<User[]> {
  const res = await fetch(`${contract.url}/__admin/state`);
  return z.object({ data: z.object({ users: z.array(userSchema) }) }).parse(await res.json()).data.users;
}

beforeAll(async () => {
  users = await adminUsers();
});

// Local rather than the harness's shared client: see the limiter note above.
beforeEach(() => {
  client = newClient(contract.url);
});

afterEach(async () => {
  await client.close();
});

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('fixture missing');
  return value;
}

/** Every order row, read through the client. */
async function allRows(): Promise<LiveOrderRow[]> {
  const { total, rows } = await client.describeHostAcceleratePackOrder({ pageNum: 1, pageSize: 1000 });
  expect(rows).toHaveLength(must(total));
  return rows;
}

interface Fixture {
  /** A seeded order per list status at T0. */
  readonly pending: LiveOrderRow;
  readonly active: LiveOrderRow;
  readonly expired: LiveOrderRow;
  /** Users holding no order, free for new ones. */
  readonly free: readonly [User, User, User];
}

async function fixture(): Promise<Fixture> {
  const rows = await allRows();
  const inStatus = (status: number): LiveOrderRow => must(rows.find((r) => r.status === status));
  const booked = new Set(rows.map((r) => r.uid));
  const [a, b, c] = users.filter((u) => !booked.has(u.uid));
  return { pending: inStatus(0), active: inStatus(1), expired: inStatus(2), free: [must(a), must(b), must(c)] };
}

// ------------------------------------------------------------- request items

const newOrder = (u: Pick<User, 'uid' | 'platformId'>, extra: Partial<CreateItem> = {}): CreateItem => ({
  uid: u.uid, platformId: u.platformId, source: '电信', endMonthTime: '2026-04-30', isRenew: true, province: '粤', nickname: '测试主播', ...extra,
});

const updateOf = (row: LiveOrderRow, extra: Partial<UpdateItem> = {}): UpdateItem => ({
  orderId: row.orderId, uid: row.uid, endMonthTime: '2026-06-30 00:00:00', isRenew: false, source: '移动', nickname: '新昵称', province: '川', ...extra,
});

const modifyOf = (row: LiveOrderRow, to: User, extra: Partial<ModifyItem> = {}): ModifyItem => ({
  orderId: row.orderId, oldUid: row.uid, newUid: to.uid, newPlatformId: to.platformId, executeTime: TODAY, newNickname: '换绑主播', ...extra,
});

/** The pair an order row is bound to. */
const holderOf = (row: LiveOrderRow): Pick<User, 'uid' | 'platformId'> => ({ uid: row.uid, platformId: must(row.platformId ?? undefined) });
const otherCarrier = (row: LiveOrderRow): Carrier => must(CARRIERS.find((c) => c !== row.source));
const tooLong = (ch: string): string => ch.repeat(33);

/** One table row: the items of one batch; the last item's status is the code under test. */
interface Case<I> {
  readonly code: number;
  readonly when: string;
  readonly items: (fx: Fixture) => I[] | Promise<I[]>;
}

function lastStatus(data: ReadonlyArray<{ status: number }>, sent: readonly unknown[]): number | undefined {
  expect(data).toHaveLength(sent.length);
  return data.at(-1)?.status;
}

// ------------------------------------------------------- result codes: wire

const createCases: Case<CreateItem>[] = [
  { code: 1, when: 'a bound pair with valid fields', items: ({ free }) => [newOrder(free[0])] },
  { code: 1, when: 'nickname and province are omitted', items: ({ free }) => [newOrder(free[0], { nickname: undefined, province: undefined })] },
  { code: 2, when: 'the platform ID belongs to another uid', items: ({ free }) => [newOrder(free[0], { platformId: free[1].platformId })] },
  { code: 2, when: 'the uid is unknown', items: ({ free }) => [newOrder(free[0], { uid: 'nobody' })] },
  { code: 3, when: 'the nickname is too long (33 characters)', items: ({ free }) => [newOrder(free[0], { nickname: tooLong('名') })] },
  { code: 3, when: 'the nickname is blank', items: ({ free }) => [newOrder(free[0], { nickname: '  ' })] },
  { code: 5, when: 'the end date is the activation date', items: ({ free }) => [newOrder(free[0], { endMonthTime: ACTIVATION })] },
  { code: 5, when: 'the end date is before activation', items: ({ free }) => [newOrder(free[0], { endMonthTime: TODAY })] },
  { code: 6, when: 'the uid already has an active order', items: ({ active }) => [newOrder(holderOf(active))] },
  {
    code: 6,
    when: 'the uid has an unactivated order on another carrier',
    items: ({ pending }) => [newOrder(holderOf(pending), { source: otherCarrier(pending) })],
  },
  { code: 6, when: 'an earlier item of the same batch books the uid', items: ({ free }) => [newOrder(free[0]), newOrder(free[0], { source: '联通' })] },
  { code: 7, when: 'the province is a full name, not an abbreviation', items: ({ free }) => [newOrder(free[0], { province: '广东' })] },
  { code: 9, when: `the uid is the simulator's internal-error uid`, items: ({ free }) => [newOrder(free[0], { uid: INTERNAL_ERROR_UID })] },
];

const updateCases: Case<UpdateItem>[] = [
  { code: 1, when: 'the order is not activated yet', items: ({ pending }) => [updateOf(pending)] },
  { code: 2, when: 'the uid is not the order uid', items: ({ pending, active }) => [updateOf(pending, { uid: active.uid })] },
  { code: 3, when: 'the nickname is too long (33 characters)', items: ({ pending }) => [updateOf(pending, { nickname: tooLong('n') })] },
  { code: 5, when: 'the end date is the activation date', items: ({ pending }) => [updateOf(pending, { endMonthTime: pending.startTime })] },
  { code: 6, when: 'the orderId is unknown', items: ({ pending }) => [updateOf(pending, { orderId: 'no-such-order' })] },
  { code: 7, when: 'the order is already activated', items: ({ active }) => [updateOf(active)] },
  { code: 8, when: 'the order has expired', items: ({ expired }) => [updateOf(expired)] },
  { code: 10, when: `the uid is the simulator's internal-error uid`, items: ({ pending }) => [updateOf(pending, { uid: INTERNAL_ERROR_UID })] },
];

/** DEFAULT_MAX_MODIFICATIONS accepted changes, each in force (clock past 00:00 after its date) before the next. */
async function exhaustChanges(fx: Fixture): Promise<ModifyItem> {
  let holder: LiveOrderRow = fx.active;
  for (let i = 0; i < DEFAULT_MAX_MODIFICATIONS; i++) {
    const today = contract.sim.tz.formatDate(contract.sim.clock.now());
    const item = modifyOf(holder, i % 2 === 0 ? fx.free[0] : fx.free[1], { executeTime: today });
    expect((await client.modifyHostAcceleratePackOrder({ modifyOrders: [item] })).data[0]?.status).toBe(1);
    contract.sim.clock.advance(DAY);
    holder = { ...holder, uid: item.newUid };
  }
  return modifyOf(holder, fx.free[2], { executeTime: contract.sim.tz.formatDate(contract.sim.clock.now()) });
}

const modifyCases: Case<ModifyItem>[] = [
  { code: 1, when: 'an active order is rebound from today', items: ({ active, free }) => [modifyOf(active, free[0])] },
  { code: 1, when: 'newNickname is omitted', items: ({ active, free }) => [modifyOf(active, free[0], { newNickname: undefined })] },
  { code: 2, when: 'oldUid is not the order uid', items: ({ active, free }) => [modifyOf(active, free[0], { oldUid: free[1].uid })] },
  { code: 3, when: 'newPlatformId belongs to another uid', items: ({ active, free }) => [modifyOf(active, free[0], { newPlatformId: free[1].platformId })] },
  { code: 4, when: 'the new nickname is too long (33 characters)', items: ({ active, free }) => [modifyOf(active, free[0], { newNickname: tooLong('名') })] },
  { code: 5, when: 'the order does not exist', items: ({ active, free }) => [modifyOf(active, free[0], { orderId: 'no-such-order' })] },
  { code: 6, when: 'an accepted change is still pending', items: ({ active, free }) => [modifyOf(active, free[0]), modifyOf(active, free[1])] },
  { code: 7, when: 'the order is not activated yet', items: ({ pending, free }) => [modifyOf(pending, free[0])] },
  { code: 7, when: 'the order has expired', items: ({ expired, free }) => [modifyOf(expired, free[0])] },
  { code: 8, when: 'executeTime is yesterday', items: ({ active, free }) => [modifyOf(active, free[0], { executeTime: '2026-03-01' })] },
  {
    code: 8,
    when: 'executeTime is the end date (the change would apply only after expiry)',
    items: ({ active, free }) => [modifyOf(active, free[0], { executeTime: active.endTime.slice(0, 10) })],
  },
  { code: 9, when: `the order already had ${DEFAULT_MAX_MODIFICATIONS} accepted changes (the simulator's limit)`, items: async (fx) => [await exhaustChanges(fx)] },
  { code: 10, when: `newUid is the simulator's internal-error uid`, items: ({ active, free }) => [modifyOf(active, free[0], { newUid: INTERNAL_ERROR_UID })] },
];

describe('per-item result codes through the typed client', () => {
  it.each(createCases)('create $code when $when', async ({ code, items }) => {
    const packOrder = await items(await fixture());
    const { data } = await client.createHostAcceleratePackOrder({ packOrder });
    expect(lastStatus(data, packOrder)).toBe(code);
  });

  it.each(updateCases)('update-unactivated $code when $when', async ({ code, items }) => {
    const updateOrders = await items(await fixture());
    const { data } = await client.updateHostAcceleratePackOrder({ updateOrders });
    expect(lastStatus(data, updateOrders)).toBe(code);
  });

  it.each(modifyCases)('modify-activated $code when $when', async ({ code, items }) => {
    const modifyOrders = await items(await fixture());
    const { data } = await client.modifyHostAcceleratePackOrder({ modifyOrders });
    expect(lastStatus(data, modifyOrders)).toBe(code);
  });

  it('answers a created item with the documented fields, and lists it unactivated', async () => {
    const { free } = await fixture();
    const { data } = await client.createHostAcceleratePackOrder({ packOrder: [newOrder(free[0])] });
    const [item] = data;
    expect(item).toMatchObject({
      status: 1, uid: free[0].uid, platformId: free[0].platformId, source: '电信', province: '粤', isRenew: true,
      orderId: expect.stringMatching(/^20260302\d{6}$/), startTime: ACTIVATION, endTime: '2026-04-30 23:59:59',
    });
    const row = must((await allRows()).find((r) => r.orderId === item?.orderId));
    expect(row).toMatchObject({ status: 0, uid: free[0].uid, nickName: '测试主播', executeTime: null });
  });
});

// ------------------------------------------------ result codes: guarded locally

interface Guarded {
  readonly column: string;
  readonly code: number;
  readonly when: string;
  readonly operation: OperationName;
  readonly path: string;
  readonly allowed: RegExp;
  readonly send: (fx: Fixture) => Promise<unknown>;
}

// A TypeScript caller cannot write these values (the `as` stands for input
// that arrives untyped, e.g. from the CLI); the client's validation stops them
// before the wire. The simulator's answer to them on the wire (create 4 and 8,
// update 4 and 9, modify 8 for a malformed date) is covered by
// test/simulator/orders.test.ts and test/simulator/orders-update.test.ts.
const guardedCases: Guarded[] = [
  {
    column: 'create', code: 4, when: 'endMonthTime uses slashes', operation: 'createHostAcceleratePackOrder',
    path: 'packOrder.0.endMonthTime', allowed: /yyyy-MM-dd HH:mm:ss or yyyy-MM-dd/,
    send: ({ free }) => client.createHostAcceleratePackOrder({ packOrder: [newOrder(free[0], { endMonthTime: '2026/04/30' })] }),
  },
  {
    column: 'create', code: 4, when: 'endMonthTime is not a calendar date', operation: 'createHostAcceleratePackOrder',
    path: 'packOrder.0.endMonthTime', allowed: /yyyy-MM-dd HH:mm:ss or yyyy-MM-dd/,
    send: ({ free }) => client.createHostAcceleratePackOrder({ packOrder: [newOrder(free[0], { endMonthTime: '2026-02-30' })] }),
  },
  {
    column: 'create', code: 8, when: 'the carrier is not 联通/移动/电信', operation: 'createHostAcceleratePackOrder',
    path: 'packOrder.0.source', allowed: /联通.*移动.*电信/,
    send: ({ free }) => client.createHostAcceleratePackOrder({ packOrder: [newOrder(free[0], { source: '铁通' as Carrier })] }),
  },
  {
    column: 'update-unactivated', code: 4, when: 'endMonthTime is day-first', operation: 'updateHostAcceleratePackOrder',
    path: 'updateOrders.0.endMonthTime', allowed: /yyyy-MM-dd HH:mm:ss or yyyy-MM-dd/,
    send: ({ pending }) => client.updateHostAcceleratePackOrder({ updateOrders: [updateOf(pending, { endMonthTime: '30-06-2026' })] }),
  },
  {
    column: 'update-unactivated', code: 9, when: 'the carrier is not 联通/移动/电信', operation: 'updateHostAcceleratePackOrder',
    path: 'updateOrders.0.source', allowed: /联通.*移动.*电信/,
    send: ({ pending }) => client.updateHostAcceleratePackOrder({ updateOrders: [updateOf(pending, { source: '广电' as Carrier })] }),
  },
  {
    column: 'modify-activated', code: 8, when: 'executeTime has a time of day', operation: 'modifyHostAcceleratePackOrder',
    path: 'modifyOrders.0.executeTime', allowed: /yyyy-MM-dd/,
    send: ({ active, free }) => client.modifyHostAcceleratePackOrder({ modifyOrders: [modifyOf(active, free[0], { executeTime: `${TODAY} 00:00:00` })] }),
  },
  {
    column: 'modify-activated', code: 8, when: 'executeTime uses slashes', operation: 'modifyHostAcceleratePackOrder',
    path: 'modifyOrders.0.executeTime', allowed: /yyyy-MM-dd/,
    send: ({ active, free }) => client.modifyHostAcceleratePackOrder({ modifyOrders: [modifyOf(active, free[0], { executeTime: '2026/03/10' })] }),
  },
];

describe('result codes whose trigger the client rejects locally', () => {
  it.each(guardedCases)('$column $code when $when: ValidationError on $path, nothing sent', async ({ operation, path, allowed, send }) => {
    const fx = await fixture();
    const err = await rejection(send(fx));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ operation, issues: [{ path, message: expect.stringMatching(allowed) }] });
    expect(contract.sim.requestCounts()[operation] ?? 0).toBe(0);
  });
});

// ------------------------------------------------------------ the order list

describe('describeHostAcceleratePackOrder', () => {
  it.each([2, 4, 9])('pages of %i cover every row exactly once, total constant', async (pageSize) => {
    const all = (await allRows()).map((r) => r.orderId);
    const pages = Math.ceil(all.length / pageSize);
    const seen: string[] = [];
    for (let pageNum = 1; pageNum <= pages + 1; pageNum++) {
      const { total, rows } = await client.describeHostAcceleratePackOrder({ pageNum, pageSize });
      expect(total).toBe(all.length);
      expect(rows.length).toBe(pageNum > pages ? 0 : Math.min(pageSize, all.length - (pageNum - 1) * pageSize));
      seen.push(...rows.map((r) => r.orderId));
    }
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(all.length);
  });

  it('filters by uid (exact)', async () => {
    const rows = await allRows();
    const { uid } = must(rows[0]);
    const res = await client.describeHostAcceleratePackOrder({ pageNum: 1, pageSize: 100, uid });
    expect(res.rows.map((r) => r.orderId)).toEqual(rows.filter((r) => r.uid === uid).map((r) => r.orderId));
    expect(res.total).toBe(res.rows.length);
    expect((await client.describeHostAcceleratePackOrder({ pageNum: 1, pageSize: 100, uid: uid.slice(0, 3) })).total).toBe(0);
  });

  it.each(CARRIERS)('filters by carrier %s', async (source) => {
    const expected = (await allRows()).filter((r) => r.source === source).map((r) => r.orderId);
    const res = await client.describeHostAcceleratePackOrder({ pageNum: 1, pageSize: 100, source });
    expect(res.rows.map((r) => r.orderId)).toEqual(expected);
    expect(res.total).toBe(expected.length);
  });

  it.each<[string, { startTime?: string; endTime?: string }, number[]]>([
    ['today: the active orders', { startTime: `${TODAY} 00:00:00`, endTime: `${TODAY} 23:59:59` }, [1]],
    ['from activation on: active and unactivated', { startTime: ACTIVATION }, [0, 1]],
    ['until a month ago: expired only', { endTime: '2026-02-02 00:00:00' }, [2]],
  ])('filters by service overlapping a time range (%s)', async (_, range, statuses) => {
    const rows = await allRows();
    // Fixed-width platform times compare as strings.
    const overlaps = (r: LiveOrderRow): boolean =>
      (range.endTime === undefined || r.startTime <= range.endTime) && (range.startTime === undefined || r.endTime >= range.startTime);
    const expected = rows.filter(overlaps);
    expect(new Set(expected.map((r) => r.status))).toEqual(new Set(statuses));
    const res = await client.describeHostAcceleratePackOrder({ pageNum: 1, pageSize: 100, ...range });
    expect(res.rows.map((r) => r.orderId)).toEqual(expected.map((r) => r.orderId));
    expect(res.total).toBe(expected.length);
  });

  it.each([
    ['a date without a time of day', { startTime: TODAY }, 'startTime', /yyyy-MM-dd HH:mm:ss/],
    ['a reversed range', { startTime: `${TODAY} 00:00:01`, endTime: `${TODAY} 00:00:00` }, 'endTime', /earlier than startTime/],
  ])('rejects %s locally, as the simulator would with HTTP 400', async (_, range, path, message) => {
    const err = await rejection(client.describeHostAcceleratePackOrder({ pageNum: 1, pageSize: 10, ...range }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ issues: [{ path, message: expect.stringMatching(message) }] });
    expect(contract.sim.requestCounts().describeHostAcceleratePackOrder ?? 0).toBe(0);
  });
});

// ---------------------------------------------------- live-quality reports

describe('describeVQUserData', () => {
  type Report = { dataId: string; uid: string };
  const allReports = async (): Promise<Report[]> => {
    const { total, rows } = await client.describeVQUserData({ pageNum: 1, pageSize: 1000 });
    expect(rows).toHaveLength(must(total));
    expect(rows.length).toBeGreaterThan(10);
    return rows;
  };
  const ids = (rows: readonly Report[]): string[] => rows.map((r) => r.dataId);

  it('pages 10 at a time by default; pages cover every report once', async () => {
    const all = await allReports();
    const first = await client.describeVQUserData({});
    expect(first.total).toBe(all.length);
    expect(ids(first.rows)).toEqual(ids(all.slice(0, 10)));
    const pages = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((pageNum) => client.describeVQUserData({ pageNum, pageSize: 5 })));
    expect(pages.flatMap((p) => ids(p.rows))).toEqual(ids(all).slice(0, 40));
  });

  it.each([
    ['one uid value is a fuzzy match', 'uid', (all: Report[]) => [must(all[0]).uid.slice(0, 4)], (r: Report, v: string[]) => r.uid.includes(must(v[0]))],
    ['several uid values are exact', 'uid', (all: Report[]) => [must(all[0]).uid, must(all.at(-1)).uid, must(all[0]).uid.slice(0, 4)], (r: Report, v: string[]) => v.includes(r.uid)],
    ['one dataId value is a fuzzy match', 'dataId', (all: Report[]) => [must(all[0]).dataId.slice(0, 2)], (r: Report, v: string[]) => r.dataId.includes(must(v[0]))],
    ['several dataId values are exact', 'dataId', (all: Report[]) => [must(all[0]).dataId, must(all[3]).dataId, must(all[0]).dataId.slice(0, 2)], (r: Report, v: string[]) => v.includes(r.dataId)],
  ] as const)('%s', async (_, label, pick, keep) => {
    const all = await allReports();
    const value = pick(all);
    const expected = all.filter((r) => keep(r, value));
    expect(expected.length).toBeGreaterThan(0);
    const res = await client.describeVQUserData({ pageNum: 1, pageSize: 1000, filters: [{ label, value }] });
    expect(ids(res.rows)).toEqual(ids(expected));
    expect(res.total).toBe(expected.length);
  });
});

// ------------------------------------------------------- the 10 req/s limit

describe('the documented 10 requests/second on the order operations', () => {
  // The simulator's limiter (ratelimit.ts, called from router.ts) measures
  // time on the simulator clock. On a fixed clock every request lands in the
  // same simulated millisecond, so the 11th is refused however well the client
  // spaces its calls. This simulator's clock therefore runs in real mode at
  // speed 1, where simulated time is wall time, so the client's limiter (wall
  // clock) and the simulator count the same seconds and zero 429s shows that
  // the client keeps to the limit. A second token with the client's limiter
  // lifted shows that the simulator does enforce it.
  const live = useContract({ sim: { clock: { mode: 'real', start: T0 }, seed: 7 }, resetEach: false });

  const burst = async (c: EdgeClient, n: number): Promise<unknown[]> =>
    Promise.all(Array.from({ length: n }, (_, i) =>
      c.describeHostAcceleratePackOrder({ pageNum: 1 + (i % 3), pageSize: 5 }).then(() => 'ok', (e: unknown) => (isApiError(e) ? e.code : e))));

  it('a burst of 15 list calls through one client gets no 429', async () => {
    let waits = 0;
    const c = newClient(live.url, { observer: { onRateLimitWait: () => void waits++ } });
    try {
      expect(await burst(c, 15)).toEqual(Array(15).fill('ok'));
      expect(waits).toBe(5);
      expect(live.sim.requestCounts().describeHostAcceleratePackOrder).toBe(15);
    } finally {
      await c.close();
    }
  });

  it('without the client limiter the simulator answers 429 beyond 10 in a second', async () => {
    const c = newClient(live.url, { token: LIMITED_TOKEN, orderRateLimit: 1000 });
    try {
      // All 15 arrive within one second: 10 accepted, 5 refused.
      const outcomes = await burst(c, 15);
      expect(outcomes.filter((o) => o === 'EDGE_RATE_LIMITED')).toHaveLength(5);
    } finally {
      await c.close();
    }
  });
});
