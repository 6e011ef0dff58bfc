// The status page's lines about the network besides the collectors' rows:
// throttling while it lasts, the last connection failure of each client that
// has no row (OTLP, remote-write, the WAF event job), certificate checks off.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { ACCOUNT_CLIENTS, OutboundNotices, PIPE_CLIENTS } from '../../src/daemon/wiring/network.js';

const config = loadConfig({ text: 'simulator: { enabled: true }', env: {} });

describe('OutboundNotices', () => {
  it('says the upstream is throttled from the first 429 until throttling ends, naming the answer and the host', () => {
    const notices = new OutboundNotices();
    expect(notices.notices(config, ACCOUNT_CLIENTS)).toEqual([]);
    notices.throttling({ host: 'https://api.example.com', status: 429 });
    const [line, ...rest] = notices.notices(config, ACCOUNT_CLIENTS);
    expect(rest).toEqual([]);
    expect(line).toMatch(/^upstream: throttled since \d{4}-\d\d-\d\dT[\d:.]+Z \(HTTP 429 from https:\/\/api\.example\.com\): requests wait for Retry-After/);
    notices.throttling(undefined);
    expect(notices.notices(config, ACCOUNT_CLIENTS)).toEqual([]);
  });

  it('keeps the WAF event job\'s last connection failure, and nothing for its other failures', () => {
    const notices = new OutboundNotices();
    notices.recordRun('waf_events', { code: 'EDGE_AUTH', message: 'describeLogV2: HTTP 401' });
    notices.recordRun('waf_events', undefined);
    expect(notices.notices(config, ACCOUNT_CLIENTS)).toEqual([]);
    notices.recordRun('waf_events', { code: 'EDGE_NETWORK', message: 'cannot reach 127.0.0.1:1 (ECONNREFUSED): hint' });
    expect(notices.notices(config, ACCOUNT_CLIENTS)).toEqual([expect.stringMatching(/^waf_events: last connection failure at .+: cannot reach 127\.0\.0\.1:1 \(ECONNREFUSED\): hint$/)]);
  });

  it('warns of certificate checks off in the section of the client that has them: an account\'s upstream there, a push pipe\'s once for the daemon', () => {
    const insecure = loadConfig({
      text: [
        'upstream: { api_url: "https://api.example.com", token: t-1, tls: { insecure_skip_verify: true } }',
        'remote_write: { url: "https://rw.example.com/api/v1/write", tls: { insecure_skip_verify: true } }',
      ].join('\n'),
      env: {},
    });
    const notices = new OutboundNotices();
    expect(notices.notices(insecure, ACCOUNT_CLIENTS)).toEqual([expect.stringContaining('upstream.tls.insecure_skip_verify')]);
    expect(notices.notices(insecure, PIPE_CLIENTS)).toEqual([expect.stringContaining('remote_write.tls.insecure_skip_verify')]);
  });
});
