// Rotating the accepted tokens while the simulator serves: the old token is
// answered 401 from the next request on, the new one is served; the admin
// endpoint refuses a malformed list and never echoes tokens.
import { afterEach, describe, expect, it } from 'vitest';
import { startSim, type Harness } from './helpers.js';

const OLD = 'sim-rotate-old-5a1c';
const NEW = 'sim-rotate-new-7e2d';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(): Promise<Harness> {
  h = await startSim({ tokens: [{ token: OLD, permissions: '*' }] });
  return h;
}

describe('rotating tokens', () => {
  it('sim.setTokens: the old token gets 401, the new one is served, and a reset keeps them', async () => {
    const s = await start();
    expect((await s.call('getPackages', {}, { auth: `Bearer ${OLD}` })).status).toBe(200);
    s.sim.setTokens([{ token: NEW, permissions: '*' }]);
    const refused = await s.call('getPackages', {}, { auth: `Bearer ${OLD}` });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe(401);
    expect((await s.call('getPackages', {}, { auth: `Bearer ${NEW}` })).status).toBe(200);
    s.sim.reset();
    expect((await s.call('getPackages', {}, { auth: `Bearer ${NEW}` })).status).toBe(200);
    expect((await s.call('getPackages', {}, { auth: `Bearer ${OLD}` })).status).toBe(401);
  });

  it('POST /__admin/tokens does the same, permissions default to every one, and the answer holds no token', async () => {
    const s = await start();
    const res = await s.raw('POST', '/__admin/tokens', { auth: null, body: JSON.stringify({ tokens: [{ token: NEW }, { token: OLD, permissions: [] }] }) });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ code: 200, msg: 'ok', data: { accepted: 2 } });
    expect(text).not.toContain(NEW);
    expect((await s.call('getPackages', {}, { auth: `Bearer ${NEW}` })).status).toBe(200);
    // Still known, but without any permission now.
    expect((await s.call('pushUrlsCache', {}, { auth: `Bearer ${OLD}` })).status).toBe(403);

    expect((await s.admin('POST', 'tokens', [])).body).toEqual({ code: 200, msg: 'ok', data: { accepted: 0 } });
    expect((await s.call('getPackages', {}, { auth: `Bearer ${NEW}` })).status).toBe(401);
  });

  it.each([
    ['not a list', { token: NEW }, 'tokens must be an array of {token, permissions}'],
    ['an empty token', [{ token: '' }], 'tokens[0].token must be a non-empty string without surrounding blanks'],
    ['a token with blanks around it', [{ token: ` ${NEW}` }], 'tokens[0].token must be a non-empty string without surrounding blanks'],
    ['bad permissions', [{ token: NEW, permissions: 'all' }], "tokens[0].permissions must be '*' or an array of permission labels"],
  ])('refuses %s with 400 and keeps the tokens it had', async (_name, body, msg) => {
    const s = await start();
    const reply = await s.admin('POST', 'tokens', body);
    expect(reply).toEqual({ status: 400, body: { code: 400, msg } });
    expect((await s.call('getPackages', {}, { auth: `Bearer ${OLD}` })).status).toBe(200);
  });
});
