// The node:http(s) agent the SDK's OTLP exporter sends through (its
// `httpAgentOptions` factory): direct, or through the proxy the config chose
// for otlp.endpoint (TooTallNate's proxy agents: CONNECT for an https://
// receiver, absolute-form for an http:// one), with otlp.tls's material both
// ways. The SDK builds its agent once, on the first export.
import type { Agent } from 'node:http';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import type { HttpsProxyAgent } from 'https-proxy-agent';
import type { TlsMaterial } from './tls-files.js';

/** The SDK's HttpAgentFactory. */
type AgentFactory = (protocol: string) => Promise<Agent>;

export function agentFactory(proxy: string | undefined, tls: TlsMaterial): AgentFactory {
  return async (protocol) => {
    const secure = protocol === 'https:';
    // Loaded when first needed, as the SDK asks, so an http instrumentation (if one is ever added) patches them first.
    if (proxy !== undefined && secure) return tunnelAgent((await import('https-proxy-agent')).HttpsProxyAgent, proxy, tls);
    if (proxy !== undefined) return new (await import('http-proxy-agent')).HttpProxyAgent(proxy, { keepAlive: true });
    return secure ? new (await import('node:https')).Agent({ keepAlive: true, ...tls }) : new (await import('node:http')).Agent({ keepAlive: true });
  };
}

type ConnectOptions = Parameters<HttpsProxyAgent<string>['connect']>[1];

/**
 * An HttpsProxyAgent whose TLS to the receiver, inside the tunnel, uses
 * otlp.tls: the agent takes the TLS options of that handshake from each
 * request's options only (its own options go to the proxy connection), and
 * the SDK's requests carry none. The certificate is checked against
 * server_name, else the target's host.
 */
function tunnelAgent(Base: typeof HttpsProxyAgent, proxy: string, tls: TlsMaterial): Agent {
  const toProxy = { keepAlive: true, ...(tls.ca === undefined ? {} : { ca: tls.ca }), rejectUnauthorized: tls.rejectUnauthorized };
  return new (class extends Base<string> {
    override connect(req: Parameters<HttpsProxyAgent<string>['connect']>[0], opts: ConnectOptions): ReturnType<HttpsProxyAgent<string>['connect']> {
      if (!opts.secureEndpoint) return super.connect(req, opts);
      // The agent drops `host` from the handshake's options, so node would check the certificate against "localhost" for an IP target.
      const name = tls.servername ?? opts.host;
      return super.connect(req, { ...opts, ...tls, checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(name ?? '', cert) });
    }
  })(proxy, toProxy);
}
