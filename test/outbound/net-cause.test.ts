// describeNetCause: the errno or TLS reason found by walking `cause` as undici
// and node:http wrap it, the address, a proxy's refusal, and the one hint.
import { describe, expect, it } from 'vitest';
import { describeNetCause, netCauseText } from '../../src/outbound/net-cause.js';
import { maskUrl, proxyCredentials } from '../../src/outbound/url-credentials.js';

/** An error as node's net/tls layer makes it. */
function errno(code: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`${code} happened`), { code, ...extra });
}

/** undici's wrapping: a TypeError('fetch failed') or a SocketError with the socket's error as cause. */
function wrapped(cause: Error, code = 'UND_ERR_SOCKET'): Error {
  return Object.assign(new Error('other side closed', { cause }), { code });
}

describe('describeNetCause', () => {
  it.each([
    ['refused, direct', errno('ECONNREFUSED', { address: '127.0.0.1', port: 9 }), undefined, '127.0.0.1:9', 'ECONNREFUSED', 'check the host and port of upstream.api_url'],
    ['refused by the proxy', errno('ECONNREFUSED', { address: '10.0.0.1', port: 3128 }), 'http://10.0.0.1:3128', '10.0.0.1:3128', 'ECONNREFUSED', "check the proxy's address and port"],
    ['unknown host', errno('ENOTFOUND', { hostname: 'api.example.com' }), undefined, 'api.example.com:443', 'ENOTFOUND', 'check DNS, or whether this network reaches the internet only through a proxy (HTTPS_PROXY / upstream.proxy_url)'],
    ['unknown proxy host', errno('ENOTFOUND', { hostname: 'proxy.corp' }), 'http://proxy.corp:8080', 'proxy.corp:8080', 'ENOTFOUND', "the proxy's host name does not resolve"],
    ['untrusted, wrapped', wrapped(errno('SELF_SIGNED_CERT_IN_CHAIN')), undefined, 'api.example.com:443', 'SELF_SIGNED_CERT_IN_CHAIN', 'upstream.tls.ca_file'],
    ['leaf not verifiable', errno('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), undefined, 'api.example.com:443', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'upstream.tls.ca_file'],
    ['self-signed leaf', errno('DEPTH_ZERO_SELF_SIGNED_CERT'), undefined, 'api.example.com:443', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'upstream.tls.ca_file'],
    ['wrong name', errno('ERR_TLS_CERT_ALTNAME_INVALID'), undefined, 'api.example.com:443', 'ERR_TLS_CERT_ALTNAME_INVALID', 'upstream.tls.server_name'],
    ['expired', errno('CERT_HAS_EXPIRED'), undefined, 'api.example.com:443', 'CERT_HAS_EXPIRED', 'renew it'],
    ['reset', wrapped(errno('ECONNRESET')), undefined, 'api.example.com:443', 'ECONNRESET', 'the connection was cut'],
    ['connect timeout (undici only)', errno('UND_ERR_CONNECT_TIMEOUT'), undefined, 'api.example.com:443', 'UND_ERR_CONNECT_TIMEOUT', 'a firewall drops the traffic'],
    ['ETIMEDOUT', errno('ETIMEDOUT', { address: '203.0.113.9', port: 443 }), undefined, '203.0.113.9:443', 'ETIMEDOUT', 'a firewall drops the traffic'],
  ])('%s', (_name, error, proxy, address, reason, hint) => {
    const cause = describeNetCause(error, 'https://api.example.com/v1', 'upstream', proxy);
    expect(cause).toMatchObject({ address, reason });
    expect(cause.hint).toContain(hint);
  });

  it('tells what to do when no OTLP receiver listens: start a collector, point otlp.endpoint elsewhere, or turn WAF forwarding off', () => {
    const cause = describeNetCause(errno('ECONNREFUSED', { address: '127.0.0.1', port: 4318 }), 'http://localhost:4318/v1/logs', 'otlp', undefined);
    expect(cause).toMatchObject({ address: '127.0.0.1:4318', reason: 'ECONNREFUSED' });
    expect(cause.hint).toContain('start an OpenTelemetry Collector');
    expect(cause.hint).toContain('set otlp.endpoint');
    expect(cause.hint).toContain('waf_events.enabled: false');
  });

  it('reads a proxy\'s refusal of the CONNECT from undici\'s message, with its status', () => {
    const error = Object.assign(new Error('Proxy response (403) !== 200 when HTTP Tunneling'), { code: 'UND_ERR_ABORTED' });
    const cause = describeNetCause(error, 'https://api.example.com', 'remote_write', 'http://proxy:3128');
    expect(cause).toMatchObject({ reason: 'PROXY_REFUSED', proxyStatus: 403, hint: 'the proxy refused to connect to the target: check that it allows this host and port' });
    expect(netCauseText(cause, 'http://proxy:3128')).toBe(
      'cannot reach api.example.com:443 (PROXY_REFUSED, proxy answered HTTP 403) via proxy http://proxy:3128: the proxy refused to connect to the target: check that it allows this host and port',
    );
  });

  it('names the section\'s own keys in the hint', () => {
    const refused = errno('ECONNREFUSED', { address: '127.0.0.1', port: 4318 });
    expect(describeNetCause(refused, 'http://127.0.0.1:4318/v1/logs', 'otlp', undefined).hint).toContain('otlp.endpoint');
    expect(describeNetCause(errno('CERT_UNTRUSTED'), 'https://rw.test/api/v1/write', 'remote_write', undefined).hint).toContain('remote_write.tls.ca_file');
    expect(describeNetCause(refused, 'http://127.0.0.1:4318/v1/metrics', 'otlp_metrics', undefined).hint).toContain('check the host and port of otlp_metrics.endpoint');
    expect(describeNetCause(errno('ERR_TLS_CERT_ALTNAME_INVALID'), 'https://m.test/v1/metrics', 'otlp_metrics', undefined).hint).toContain('otlp_metrics.tls.server_name');
  });
});

describe('proxy URL credentials', () => {
  it.each([
    ['http://user:pa%24s@proxy:3128', 'http://[REDACTED]@proxy:3128'],
    ['http://proxy:3128', 'http://proxy:3128'],
    ['https://user@proxy.corp/', 'https://[REDACTED]@proxy.corp/'],
    ['not a url user:pw', '[REDACTED]'],
  ])('maskUrl(%s)', (url, masked) => {
    expect(maskUrl(url)).toBe(masked);
  });

  it('lists every form a password takes: as written, decoded, user:password and its Basic value', () => {
    expect(proxyCredentials('http://user:pa%24s@proxy:3128')).toEqual(['pa%24s', 'pa$s', 'user:pa$s', Buffer.from('user:pa$s').toString('base64')]);
    expect(proxyCredentials('http://proxy:3128')).toEqual([]);
  });
});
