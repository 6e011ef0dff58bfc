// POST /__admin/domains: domains taken out of the account leave listDomains
// (and its total) until restored; their data stays the same truth; reset
// restores every one; unknown names and malformed bodies are a 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startSim({ domains: 5 });
});
afterAll(() => h.close());

const listed = async (): Promise<{ total: number; names: string[] }> => {
  const res = await h.call('listDomains', { filters: [], searchHeader: { isActive: [] }, pageNum: 1, pageSize: 100 });
  expect(res.status).toBe(200);
  return { total: Number(res.body.total), names: ((res.body.rows ?? []) as { domainName: string }[]).map((r) => r.domainName) };
};

describe('removing and restoring domains', () => {
  it('removed domains leave listDomains until restored, and reset restores them', async () => {
    const all = h.sim.truth.domains();
    const [a, b] = all as [string, string];
    expect((await h.admin('POST', 'domains', { remove: [a, b] })).body.data).toEqual({ removed: [a, b].sort() });
    expect(await listed()).toEqual({ total: 3, names: all.filter((d) => d !== a && d !== b) });
    expect((await h.admin('POST', 'domains', { restore: [a] })).body.data).toEqual({ removed: [b] });
    expect((await listed()).names).toEqual(all.filter((d) => d !== b));
    await h.admin('POST', 'reset');
    expect(await listed()).toEqual({ total: 5, names: all });
  });

  it.each([
    ['an unknown name', { remove: ['nope.example'] }, 'unknown domain'],
    ['not an array', { restore: 'x' }, 'restore must be an array'],
    ['not an object', [1], 'body must be an object'],
  ])('refuses %s with a 400', async (_name, body, message) => {
    const res = await h.admin('POST', 'domains', body);
    expect(res.status).toBe(400);
    expect(String(res.body.msg)).toContain(message);
    expect((await listed()).total).toBe(5);
  });
});
