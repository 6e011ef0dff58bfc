// createDispatcher routes as proxyFor decides: the same NO_PROXY table run
// through undici's EnvHttpProxyAgent (given the strings, reading no
// variable) and through proxyFor, which the OTLP client (node:http) uses.
// A request undici sends to the proxy arrives at a loopback stand-in (in
// absolute-form for http://, as CONNECT for https://); one it sends direct
// asks the injected lookup, which fails as node's dns.lookup fails for an
// unknown name, so no name here is ever resolved through DNS.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDispatcher } from '../../src/outbound/dispatcher.js';
import { directEndpoint } from '../../src/outbound/endpoint.js';
import { proxyFor, type ProxyRoute } from '../../src/outbound/proxy-route.js';

let server: Server;
let proxyUrl: string;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  server.on('connect', (req, socket) => {
    seen.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const noDns: LookupFunction = (hostname, _options, callback) => {
  callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname }), '', 4);
};

/** Where undici sent a request to `target`: to the proxy (and how), or direct. */
async function routeOf(route: ProxyRoute, target: string): Promise<string> {
  const dispatcher = createDispatcher({ ...directEndpoint('upstream', target), route }, { connections: 1, lookup: noDns });
  const before = seen.length;
  try {
    const res = await request(target, { dispatcher });
    await res.body.dump();
  } catch (err) {
    const code = findCode(err);
    if (seen.length === before) return code === 'ENOTFOUND' ? 'direct' : `error ${code}`;
  } finally {
    await dispatcher.close();
  }
  return seen.slice(before).join(', ');
}

function findCode(err: unknown): string | undefined {
  for (let e: unknown = err; typeof e === 'object' && e !== null; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ENOTFOUND') return code;
  }
  return undefined;
}

describe('createDispatcher and proxyFor agree', () => {
  it.each([
    ['', 'http://api.example.com/v1/x'],
    ['', 'https://api.example.com/v1/x'],
    ['api.example.com', 'http://api.example.com/x'],
    ['example.com', 'https://api.example.com/x'],
    ['.example.com', 'http://api.example.com/x'],
    ['*.example.com', 'http://api.example.com/x'],
    ['ample.com', 'http://api.example.com/x'],
    ['API.EXAMPLE.com', 'http://api.example.com/x'],
    ['api.example.com:8080', 'http://api.example.com/x'],
    ['api.example.com:80', 'http://api.example.com/x'],
    ['api.example.com:8080', 'http://api.example.com:8080/x'],
    ['*', 'https://api.example.com/x'],
    ['other.test, api.example.com', 'http://api.example.com/x'],
  ])('NO_PROXY=%j, %s', async (noProxy, target) => {
    const route: ProxyRoute = { httpProxy: proxyUrl, httpsProxy: proxyUrl, noProxy, source: 'environment' };
    const url = new URL(target);
    const expected = proxyFor(route, target) === undefined
      ? 'direct'
      // CONNECT for https://, the absolute-form request for http://.
      : url.protocol === 'https:' ? `CONNECT ${url.hostname}:443` : `GET ${target}`;
    expect(await routeOf(route, target)).toBe(expected);
  });

  it('reads no environment variable: an empty route goes direct though http_proxy names the proxy', async () => {
    vi.stubEnv('http_proxy', proxyUrl);
    vi.stubEnv('HTTP_PROXY', proxyUrl);
    try {
      expect(await routeOf({ httpProxy: '', httpsProxy: '', noProxy: '', source: 'none' }, 'http://api.example.com/x')).toBe('direct');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
