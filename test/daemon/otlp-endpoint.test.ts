// Where WAF events go: otlp.endpoint (from the file or the OTEL_* variables)
// whenever it is set; unset, the demo's receiver beside the bundled simulator,
// reached directly even under HTTP_PROXY (it is loopback, like the simulator);
// unset with a real account, the default endpoint through the proxy rules.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { otlpEndpoint } from '../../src/daemon/wiring/waf-events.js';

const RECEIVER = 'http://127.0.0.1:41999/v1/logs';
const PROXY = 'http://127.0.0.1:3128';
const local = { url: 'http://127.0.0.1:41998', token: 't', otlpEndpoint: RECEIVER, stop: async () => {} };

describe('otlpEndpoint', () => {
  it.each([
    ['set in the file, demo running', ['otlp: { endpoint: "http://10.0.0.5:4318/v1/logs" }'], {}, true, 'http://10.0.0.5:4318/v1/logs', PROXY, false],
    ['set by OTEL_EXPORTER_OTLP_ENDPOINT, demo running', [], { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://10.0.0.6:4318' }, true, 'http://10.0.0.6:4318/v1/logs', PROXY, false],
    ['unset, demo running', [], {}, true, RECEIVER, '', true],
    ['unset, a real account', ['upstream: { api_url: "http://127.0.0.1:1", token: t }'], {}, false, 'http://127.0.0.1:4318/v1/logs', PROXY, false],
  ] as const)('%s', (_name, lines, env, demo, url, httpProxy, isLocal) => {
    const config = loadConfig({ text: ['simulator: { enabled: true }', ...lines].join('\n'), env: { HTTP_PROXY: PROXY, ...env } });
    const endpoint = otlpEndpoint(config, demo ? local : undefined);
    expect(endpoint).toMatchObject({ name: 'otlp', url, local: isLocal });
    expect(endpoint.route.httpProxy).toBe(httpProxy);
  });

  it('keeps otlp.tls for a configured receiver, not for the demo receiver', () => {
    const config = loadConfig({ text: 'simulator: { enabled: true }\notlp: { tls: { insecure_skip_verify: true } }', env: {} });
    expect(otlpEndpoint(config, local).tls).toBeUndefined();
    expect(otlpEndpoint(config, undefined).tls).toMatchObject({ insecureSkipVerify: true });
  });
});
