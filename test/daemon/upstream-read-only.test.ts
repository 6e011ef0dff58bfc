// The wired upstream hands the daemon and the doctor a read client with no
// write method at all; the writes stay reachable through `call` alone, which
// only the `call` command uses.
import { afterEach, expect, it } from 'vitest';
import { OPERATIONS, OPERATION_NAMES } from '../../src/api/index.js';
import { loadConfig } from '../../src/config/index.js';
import { openUpstream, type Upstream } from '../../src/daemon/wiring/upstream.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';

let sim: Simulator | undefined;
let upstream: Upstream | undefined;
afterEach(async () => {
  await upstream?.stop();
  await sim?.close();
});

it('gives the daemon read methods only, and reaches a write through call', async () => {
  sim = createSimulator({ clock: { mode: 'fixed', start: '2026-03-02 12:00:00' }, domains: 2 });
  const { url } = await sim.listen('127.0.0.1', 0);
  const config = loadConfig({ text: `upstream: { api_url: "${url}", token: sim-token, retry: { attempts: 1 } }`, env: {} });
  upstream = await openUpstream(config, createLogger({ level: 'silent' }));
  const reads = OPERATION_NAMES.filter((n) => !OPERATIONS[n].write);
  expect(Object.keys(upstream.client).sort()).toEqual([...reads].sort());
  expect(Object.isFrozen(upstream.client)).toBe(true);
  await expect(upstream.client.getPackages({})).resolves.toMatchObject({ code: 200 });
  // A write to a package that does not exist is still sent: the simulator refuses it, and counts it.
  await expect(upstream.call('insertRule', { oid: 'no-such-package' })).rejects.toMatchObject({ code: 'EDGE_UPSTREAM' });
  expect(sim.requestCounts()).toMatchObject({ getPackages: 1, insertRule: 1 });
  expect(upstream.ratePerSecond()).toBe(Number.POSITIVE_INFINITY);
});
