// The node:http transport of an endpoint, for the OTLP exporter: the SDK's
// exporter sends through node:http(s) and takes the agent from a factory
// (`httpAgentOptions`), which this makes: direct, or through the proxy the
// route picks for the endpoint's URL (TooTallNate's proxy agents: CONNECT for
// an https:// receiver, absolute-form for an http:// one; node:http has no
// EnvHttpProxyAgent, so NO_PROXY is applied here, by proxyFor), with the
// endpoint's TLS material both ways. The SDK builds its agent once, on the
// first export.
import type { Agent } from 'node:http';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import type { HttpsProxyAgent } from 'https-proxy-agent';
import type { Endpoint } from './endpoint.js';
import { proxyFor } from './proxy-route.js';
import { proxyTls, readTlsFiles, type TlsMaterial } from './tls-files.js';

/** The SDK's HttpAgentFactory. */
type AgentFactory = (protocol: string) => Promise<Agent>;

/** Reads the endpoint's TLS files now (throws TlsFileError naming the one that cannot be read). */
export function agentFactory(endpoint: Endpoint): AgentFactory {
  const proxy = proxyFor(endpoint.route, endpoint.url);
  const tls = readTlsFiles(endpoint.tls, `${endpoint.name}.tls`);
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
 * An HttpsProxyAgent whose TLS to the receiver, inside the tunnel, uses the
 * endpoint's material: the agent takes the TLS options of that handshake from
 * each request's options only (its own options go to the proxy connection),
 * and the SDK's requests carry none. The certificate is checked against
 * server_name, else the URL's host.
 */
function tunnelAgent(Base: typeof HttpsProxyAgent, proxy: string, tls: TlsMaterial): Agent {
  return new (class extends Base<string> {
    override connect(req: Parameters<HttpsProxyAgent<string>['connect']>[0], opts: ConnectOptions): ReturnType<HttpsProxyAgent<string>['connect']> {
      if (!opts.secureEndpoint) return super.connect(req, opts);
      // The agent drops `host` from the handshake's options, so node would check the certificate against "localhost" for an IP address.
      const name = tls.servername ?? opts.host;
      return super.connect(req, { ...opts, ...tls, checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(name ?? '', cert) });
    }
  })(proxy, { keepAlive: true, ...proxyTls(tls) });
}
