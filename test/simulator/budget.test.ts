// The simulator's request budget: what it accepts and refuses on a fake clock
// (RequestBudget alone), and over HTTP: 429 with Retry-After, the admin
// switch, and the record of what was received.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/simulator/budget.js';
import { startSim, type Harness } from './helpers.js';
import { ArgumentError } from '../../src/shared/errors.js';

describe('RequestBudget', () => {
  it('is off unless switched on: everything is accepted and recorded', () => {
    const budget = new RequestBudget(undefined, () => 5);
    for (let i = 0; i < 50; i++) expect(budget.take('getPackages')).toBeUndefined();
    expect(budget.received()).toHaveLength(50);
    expect(budget.received().every((r) => !r.refused && r.at === 5)).toBe(true);
  });

  it('accepts perSecond in any second and refuses the rest with the seconds until it would accept again', () => {
    let now = 1000;
    const budget = new RequestBudget({ perSecond: 2 }, () => now);
    expect(budget.take('a')).toBeUndefined();
    now = 1400;
    expect(budget.take('a')).toBeUndefined();
    expect(budget.take('a')).toEqual({ retryAfter: '1' });
    now = 2000;
    expect(budget.take('a')).toBeUndefined();
    now = 2100;
    expect(budget.take('a')).toEqual({ retryAfter: '1' });
    expect(budget.received().map((r) => [r.at, r.refused, r.retryAfterMs])).toEqual([
      [1000, false, undefined], [1400, false, undefined], [1400, true, 1000], [2000, false, undefined], [2100, true, 1000],
    ]);
  });

  it('names a fixed wait, as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    const seconds = new RequestBudget({ perSecond: 1, retryAfterSeconds: 7 }, () => now);
    seconds.take('a');
    expect(seconds.take('a')).toEqual({ retryAfter: '7' });
    const date = new RequestBudget({ perSecond: 1, retryAfterSeconds: 7, retryAfterForm: 'date' }, () => now);
    date.take('a');
    expect(date.take('a')).toEqual({ retryAfter: 'Thu, 26 Nov 2026 12:00:07 GMT' });
  });

  it.each([{ perSecond: 0 }, { perSecond: 1.5 }, { perSecond: 1, retryAfterSeconds: -1 }, { perSecond: 1, retryAfterForm: 'hours' }])('refuses %j', (settings) => {
    expect(() => new RequestBudget(settings as never)).toThrow(ArgumentError);
  });
});

describe('over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startSim();
  });
  beforeEach(() => {
    h.sim.reset();
    h.sim.budget.set(undefined);
  });
  afterAll(() => h.close());

  const ping = () => h.raw('GET', '/prod-api/cdn/domain/getPackages');

  it('answers 429 with Retry-After over the budget, switched on and off through /__admin/budget', async () => {
    expect((await h.admin('POST', 'budget', { perSecond: 1, retryAfterSeconds: 30 })).body.data).toEqual({ perSecond: 1, retryAfterSeconds: 30 });
    expect((await ping()).status).toBe(200);
    const refused = await ping();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(await refused.json()).toMatchObject({ code: 429 });
    expect((await h.admin('DELETE', 'budget')).status).toBe(200);
    expect((await ping()).status).toBe(200);
    const received = (await h.admin('GET', 'received')).body.data as Array<{ operation: string; refused: boolean }>;
    expect(received.map((r) => [r.operation, r.refused])).toEqual([['getPackages', false], ['getPackages', true], ['getPackages', false]]);
  });

  it('a reset forgets what was received but keeps the switch', async () => {
    h.sim.budget.set({ perSecond: 5 });
    await ping();
    h.sim.reset();
    expect(h.sim.budget.received()).toEqual([]);
    expect(h.sim.budget.get()).toEqual({ perSecond: 5 });
  });

  it('refuses bad settings with a 400', async () => {
    expect((await h.admin('POST', 'budget', { perSecond: 0 })).status).toBe(400);
  });
});
