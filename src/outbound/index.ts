// The outbound room: what every HTTP client of the daemon (the upstream and
// its WAF log host, the OTLP receiver, the remote-write receiver) decides
// alike: the proxy route and NO_PROXY, TLS material from a `tls` block,
// credentials in a URL masked, a failed connection's address, cause and hint,
// and the transport each client sends through.
export { createDispatcher } from './dispatcher.js';
export { agentFactory } from './node-agent.js';
export { describeNetCause, netCauseText, urlAddress } from './net-cause.js';
export { proxyFor, type ProxyRoute } from './proxy-route.js';
export { readTlsFiles, TlsFileError, type TlsFiles } from './tls-files.js';
export { displayUrl, maskUrl, proxyCredentials } from './url-credentials.js';
