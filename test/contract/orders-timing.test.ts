// The document's activation timing rules for live orders, client to simulator
// over real HTTP, on a fixed clock moved with sim.clock.set/advance: the
// 17:00 (UTC+8) cut-off, updates until activation, a modify taking effect at
// 00:00 after its executeTime, and the list status as the clock passes
// activation and the end date. The harness seeds the world at its T0
// (2026-03-02 12:00:00 UTC+8) and resets it before each test; each test then
// sets the clock itself, uses a fresh client and makes at most 10 order
// calls, so neither side's 10 req/s limit comes into play (the simulator's
// runs on its own clock, which a fixed clock keeps in one second).
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EdgeClient } from '../../src/api/index.js';
import type { LiveOrderRow } from '../../src/api/schemas/orders.js';
import { TOKEN, useContract } from './harness.js';

const userSchema = z.object({ uid: z.string(), platformId: z.string(), nickName: z.string().nullable() });
type User = z.infer<typeof userSchema>;

const contract = useContract({ sim: { seed: 11 } });
let client: EdgeClient;
/** Two platform users without an order in the seeded world. */
let free: { a: User; b: User };

/** One attempt, no retry; a fresh one per test so the client's limiter starts empty. */
function newClient(): EdgeClient {
  return new EdgeClient({ apiUrl: contract.url, token: TOKEN, retry: { attempts: 1, minDelayMs: 1, maxDelayMs: 1 } });
}

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('fixture missing');
  return value;
}

beforeAll(async () => {
  // The platform users are listed by the admin state only; those holding a seeded order are in the order list.
  const state = z.object({ data: z.object({ users: z.array(userSchema) }) }).parse(await (await fetch(`${contract.url}/__admin/state`)).json());
  const { rows } = await contract.client.describeHostAcceleratePackOrder({ pageNum: 1, pageSize: 1000 });
  const booked = new Set(rows.map((r) => r.uid));
  const [a, b] = state.data.users.filter((u) => !booked.has(u.uid));
  free = { a: must(a), b: must(b) };
});

beforeEach(() => {
  client = newClient();
});

afterEach(async () => {
  await client.close();
});

/** Puts the simulator clock at a platform (UTC+8) time. */
function clockAt(text: string): void {
  contract.sim.clock.set(contract.sim.tz.parseDateTime(text));
}

async function create(u: User, at: string, endMonthTime = '2026-03-31'): Promise<{ status: number; orderId: string; startTime: string }> {
  clockAt(at);
  const { data } = await client.createHostAcceleratePackOrder({
    packOrder: [{ uid: u.uid, platformId: u.platformId, source: '移动', endMonthTime, isRenew: false }],
  });
  const item = must(data[0]);
  return { status: item.status, orderId: must(item.orderId ?? undefined), startTime: must(item.startTime ?? undefined) };
}

async function update(orderId: string, u: User, at: string): Promise<number | undefined> {
  clockAt(at);
  const { data } = await client.updateHostAcceleratePackOrder({
    updateOrders: [{ orderId, uid: u.uid, endMonthTime: '2026-04-30', isRenew: true, source: '联通' }],
  });
  return data[0]?.status;
}

/** The list as seen at the clock's current time. */
async function list(uid?: string): Promise<LiveOrderRow[]> {
  return (await client.describeHostAcceleratePackOrder({ pageNum: 1, pageSize: 100, ...(uid === undefined ? {} : { uid }) })).rows;
}

async function rowOf(orderId: string): Promise<LiveOrderRow> {
  return must((await list()).find((r) => r.orderId === orderId));
}

const secondBefore = (text: string): string => contract.sim.tz.formatDateTime(contract.sim.tz.parseDateTime(text) - 1000);
const dayAfter = (date: string): string => contract.sim.tz.formatDate(contract.sim.tz.parseDate(date) + 86_400_000);

describe('rules 1 and 2: the activation day depends on 17:00 (UTC+8)', () => {
  it.each([
    ['00:00:00, before 17:00', '2026-03-02 00:00:00', '2026-03-03 00:00:00'],
    ['16:59:59, the last second before 17:00', '2026-03-02 16:59:59', '2026-03-03 00:00:00'],
    ['17:00:00, counted as after 17:00', '2026-03-02 17:00:00', '2026-03-04 00:00:00'],
    ['23:59:59, after 17:00', '2026-03-02 23:59:59', '2026-03-04 00:00:00'],
  ])('created at %s → startTime %s', async (_, createdAt, activation) => {
    const order = await create(free.a, createdAt);
    expect(order).toMatchObject({ status: 1, startTime: activation });
    clockAt(secondBefore(activation));
    expect(await rowOf(order.orderId)).toMatchObject({ status: 0, startTime: activation });
    clockAt(activation);
    expect((await rowOf(order.orderId)).status).toBe(1);
  });
});

describe('rule 3: an unactivated order can be updated until its activation', () => {
  it.each([
    ['created 13:00, updated 23:59:59 the same day', '2026-03-02 13:00:00', '2026-03-02 23:59:59', 1],
    ['created 13:00, updated at activation (00:00 next day): already active', '2026-03-02 13:00:00', '2026-03-03 00:00:00', 7],
    ['created 17:30, updated 23:59:59 the next day', '2026-03-02 17:30:00', '2026-03-03 23:59:59', 1],
    ['created 17:30, updated at activation (00:00 the day after): already active', '2026-03-02 17:30:00', '2026-03-04 00:00:00', 7],
  ])('%s → code %i', async (_, createdAt, updatedAt, code) => {
    const { orderId } = await create(free.a, createdAt);
    expect(await update(orderId, free.a, updatedAt)).toBe(code);
  });
});

describe('rule 4: a modify with executeTime D takes effect at 00:00 on D+1', () => {
  it.each(['2026-03-04', '2026-03-12'])('executeTime %s: old uid and a pending change until then, the new uid after', async (executeTime) => {
    const { a, b } = free;
    const { orderId } = await create(a, '2026-03-02 10:00:00');
    clockAt('2026-03-04 10:00:00');
    const { data } = await client.modifyHostAcceleratePackOrder({
      modifyOrders: [{ orderId, oldUid: a.uid, newUid: b.uid, newPlatformId: b.platformId, executeTime }],
    });
    expect(data).toEqual([expect.objectContaining({ status: 1, orderId, executeTime })]);

    const effective = `${dayAfter(executeTime)} 00:00:00`;
    clockAt(secondBefore(effective));
    expect(await rowOf(orderId)).toMatchObject({
      status: 1, uid: a.uid, platformId: a.platformId, executeTime, message: expect.stringContaining(effective),
    });
    expect(await list(b.uid)).toEqual([]);

    contract.sim.clock.advance(1000);
    expect(await rowOf(orderId)).toMatchObject({ status: 1, uid: b.uid, platformId: b.platformId, executeTime, message: null });
    expect((await list(b.uid)).map((r) => r.orderId)).toEqual([orderId]);
    expect(await list(a.uid)).toEqual([]);
  });
});

describe('list status follows the clock', () => {
  it('0 until activation, 1 through the end date, 2 from 00:00 after it', async () => {
    const { orderId } = await create(free.a, '2026-03-02 10:00:00', '2026-03-31');
    const seen: Array<[string, number]> = [];
    for (const at of ['2026-03-02 10:00:00', '2026-03-02 23:59:59', '2026-03-03 00:00:00', '2026-03-31 23:59:59', '2026-04-01 00:00:00']) {
      clockAt(at);
      seen.push([at, (await rowOf(orderId)).status]);
    }
    expect(seen).toEqual([
      ['2026-03-02 10:00:00', 0],
      ['2026-03-02 23:59:59', 0],
      ['2026-03-03 00:00:00', 1],
      ['2026-03-31 23:59:59', 1],
      ['2026-04-01 00:00:00', 2],
    ]);
  });
});
