// Preloaded into a CLI child (`node --import`) so a test can make the daemon
// crash at runtime the way a library bug would: on SIGUSR2 an uncaught error
// (or, with EDGE_TEST_CRASH=reject, an unhandled rejection) escapes, carrying
// the request it failed on, credentials included, as HTTP client errors often
// do. The credentials come from EDGE_TEST_CRASH_TOKEN and EDGE_TEST_CRASH_API_KEY.
const token = process.env.EDGE_TEST_CRASH_TOKEN ?? '';
const apiKey = process.env.EDGE_TEST_CRASH_API_KEY ?? '';

process.on('SIGUSR2', () => {
  const err = Object.assign(new Error(`request failed: upstream closed the connection (sent Bearer ${token})`), {
    config: { url: '/prod-api/cdn/domain/list', headers: { Authorization: `Bearer ${token}`, 'x-api-key': apiKey } },
  });
  if (process.env.EDGE_TEST_CRASH === 'reject') void Promise.reject(err);
  else setImmediate(() => {
    throw err;
  });
});
