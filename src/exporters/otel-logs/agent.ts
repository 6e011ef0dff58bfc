// The node:http(s) agent the SDK's OTLP exporter sends through (its
// `httpAgentOptions` factory): direct, or through the proxy the config chose
// for otlp.endpoint (TooTallNate's proxy agents: CONNECT for an https://
// receiver, absolute-form for an http:// one), with otlp.tls's material both
// ways. The SDK builds its agent once, on the first export.
import type { Agent } from 'node:http';
import type { TlsMaterial } from '../../shared/tls-files.js';

/** The SDK's HttpAgentFactory. */
export type AgentFactory = (protocol: string) => Promise<Agent>;

export function agentFactory(proxy: string | undefined, tls: TlsMaterial): AgentFactory {
  // http:// receivers get no TLS options: node refuses none of them, but they would mean nothing.
  return async (protocol) => {
    const secure = protocol === 'https:';
    const options = { keepAlive: true, ...(secure ? tls : {}) };
    // Loaded when first needed, as the SDK asks, so an http instrumentation (if one is ever added) patches them first.
    if (proxy !== undefined && secure) return new (await import('https-proxy-agent')).HttpsProxyAgent(proxy, options);
    if (proxy !== undefined) return new (await import('http-proxy-agent')).HttpProxyAgent(proxy, options);
    return secure ? new (await import('node:https')).Agent(options) : new (await import('node:http')).Agent(options);
  };
}
