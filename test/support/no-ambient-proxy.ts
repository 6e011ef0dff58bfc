// The suite talks only to loopback servers it starts itself. A developer's
// shell often carries a company proxy (HTTPS_PROXY, http_proxy, NO_PROXY...):
// inherited by a test's daemon, it would send loopback traffic to that proxy,
// and a lower-case variable would win over the upper-case one a test sets.
// Every test worker starts without them; the tests that exercise proxies set
// their own.
const PROXY_VARIABLES = ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'ALL_PROXY'];

for (const name of PROXY_VARIABLES) {
  delete process.env[name];
  delete process.env[name.toLowerCase()];
}
