// An upstream that echoes the request's credentials in its envelope msg: the
// client masks them before the msg becomes part of an error, so no log line,
// landing page or `call` output built from the error can show them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { EdgeClient } from '../../src/api/client.js';
import type { ApiError } from '../../src/api/errors.js';
import { maskCredentials } from '../../src/api/transport.js';

const API = 'http://api.test';
const TOKEN = 'tok-Echo/7f3a+9c=';
const PATH = '/prod-api/cdn/domain/getPackages';

let agent: MockAgent;
beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});
afterEach(async () => {
  await agent.close();
});

const client = (authScheme: 'bearer' | 'raw'): EdgeClient =>
  new EdgeClient({ apiUrl: API, token: TOKEN, authScheme, dispatcher: agent, retry: { attempts: 1 } });

describe('maskCredentials', () => {
  it.each([
    ['the whole header', `got "Bearer ${TOKEN}"`, `Bearer ${TOKEN}`, 'got "[REDACTED]"'],
    ['the token alone', `token=${TOKEN}; retry`, `Bearer ${TOKEN}`, 'token=[REDACTED]; retry'],
    ['the token percent-encoded', `t=${encodeURIComponent(TOKEN)}`, `Bearer ${TOKEN}`, 't=[REDACTED]'],
    ['a raw token', `bad ${TOKEN}`, TOKEN, 'bad [REDACTED]'],
    ['nothing secret', '认证失败 <b>"x"</b>', `Bearer ${TOKEN}`, '认证失败 <b>"x"</b>'],
  ])('%s', (_name, text, authorization, expected) => {
    expect(maskCredentials(text, { authorization })).toBe(expected);
  });
});

describe('an echoing upstream', () => {
  it.each<[string, 'bearer' | 'raw', number, object, string]>([
    ['401 with the header in msg', 'bearer', 401, { code: 401, msg: `invalid Authorization: Bearer ${TOKEN}` }, 'EDGE_AUTH'],
    ['500 with the token in msg', 'bearer', 500, { code: 500, msg: `upstream saw ${TOKEN}` }, 'EDGE_HTTP'],
    ['a business error, raw scheme', 'raw', 200, { code: 1001, msg: `token ${TOKEN} expired` }, 'EDGE_UPSTREAM'],
  ])('%s: the error keeps the msg, masked', async (_name, scheme, status, body, code) => {
    agent.get(API).intercept({ path: PATH, method: 'GET' }).reply(status, body, { headers: { 'x-echo': `Bearer ${TOKEN}` } });
    const err = (await client(scheme).getPackages({}).catch((e: unknown) => e)) as ApiError;
    expect(err.code).toBe(code);
    expect(err.upstreamMsg).toContain('[REDACTED]');
    expect(err.message).toContain(err.upstreamMsg);
    expect(JSON.stringify({ message: err.message, stack: err.stack, upstreamMsg: err.upstreamMsg })).not.toContain(TOKEN);
  });
});

describe('a proxy that echoes its Proxy-Authorization', () => {
  // The client is told which proxy its dispatcher follows (the route below);
  // the MockAgent stands for the proxy's answer. An error page may quote the
  // credentials the proxy was sent: the password, user:password, or the Basic value.
  const USER = 'corp-user';
  const PASSWORD = 'pr0xy/Secret+1';
  const basic = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
  const proxy = `http://${USER}:${encodeURIComponent(PASSWORD)}@proxy.test:3128`;

  it.each([
    ['the Basic value', `denied: Proxy-Authorization: Basic ${basic}`],
    ['user:password', `user ${USER}:${PASSWORD} is not allowed`],
    ['the password, percent-encoded', `bad password ${encodeURIComponent(PASSWORD)}`],
  ])('%s is masked in the error', async (_name, msg) => {
    agent.get(API).intercept({ path: PATH, method: 'GET' }).reply(502, { code: 502, msg });
    const proxied = new EdgeClient({
      apiUrl: API, token: TOKEN, dispatcher: agent, retry: { attempts: 1 },
      proxy: { httpProxy: proxy, httpsProxy: proxy, noProxy: '', source: 'config' },
    });
    const err = (await proxied.getPackages({}).catch((e: unknown) => e)) as ApiError;
    expect(err.code).toBe('EDGE_HTTP');
    expect(err.upstreamMsg).toContain('[REDACTED]');
    const shown = JSON.stringify({ message: err.message, upstreamMsg: err.upstreamMsg });
    for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), basic]) expect(shown).not.toContain(secret);
  });
});
