// The outbound room: how every HTTP client of the daemon (the upstream and
// its WAF log host, the OTLP logs and metrics receivers, the remote-write
// receiver) reaches its endpoint. One description of an endpoint (endpoint.ts: URL, proxy route and
// NO_PROXY, TLS block, the client's name), one transport per kind built from
// it (dispatcher.ts: undici, for the upstream and remote-write;
// node-agent.ts: node:http agents, for the OTLP exporter), and what every
// client reports alike: a failed connection's address, cause and hint
// (net-cause.ts), proxy credentials masked (url-credentials.ts).
export { createDispatcher } from './dispatcher.js';
export { directEndpoint, OUTBOUND_NAMES, type Endpoint, type OutboundName, type ProxyRoutes } from './endpoint.js';
export { agentFactory } from './node-agent.js';
export { connectionFailure, ProxyRefusal, urlAddress } from './net-cause.js';
export { proxyFor, shownProxy, via, type ProxyRoute } from './proxy-route.js';
export { TlsFileError, type TlsFiles } from './tls-files.js';
export { displayUrl, maskUrl, proxyCredentials } from './url-credentials.js';
