// `edge-exporter call` failing against an upstream that rejects the token or
// echoes it back (in the envelope msg, in a plain-text body, in a header):
// the error it prints names the failure and never the token.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRule } from '../../src/simulator/faults.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { echoText, startHostileUpstream, type EchoRule, type HostileUpstream } from '../support/hostile-upstream.js';
import { TOKEN, leaks } from './canaries.js';
import { kill, startCli, type CliProcess } from './cli-process.js';

let sim: Simulator;
let proxy: HostileUpstream;
let call: CliProcess | undefined;

beforeAll(async () => {
  sim = createSimulator({ domains: 2, tokens: [{ token: TOKEN, permissions: '*' }] });
  const { url } = await sim.listen('127.0.0.1', 0);
  proxy = await startHostileUpstream(url);
});

afterEach(async () => {
  await kill(call);
  call = undefined;
  sim.faults.clear();
  proxy.setEcho([]);
});

afterAll(async () => {
  await proxy?.close();
  await sim?.close();
});

describe('a failing `call` never shows a secret', () => {
  const echoed = echoText('[REDACTED]');
  // A 5xx is retried (4 attempts by default), so the echo is counted per attempt; the process
  // must live through the backoff waits (it used to exit with 13 there, printing nothing).
  it.each([
    ['a 401 from the upstream', [{ unauthorized: true }], [], 0, 'EDGE_AUTH: getPackages: HTTP 401, token missing or invalid'],
    ['a hostile 401 echo', [], [{ operations: ['getPackages'], status: 401, style: 'json' }], 1, `EDGE_AUTH: getPackages: HTTP 401, token missing or invalid: ${echoed}`],
    ['a hostile 503 echo in plain text', [], [{ operations: ['getPackages'], status: 503, style: 'text' }], 4, 'EDGE_HTTP: getPackages: HTTP 503\n'],
    ['a hostile business error', [], [{ operations: ['getPackages'], status: 200, style: 'json' }], 1, `EDGE_UPSTREAM: getPackages: upstream code 1001: ${echoed}`],
  ] as Array<[string, FaultRule[], EchoRule[], number, string]>)('%s', async (_name, faults, echo, echoes, message) => {
    sim.faults.set(faults);
    proxy.setEcho(echo);
    const before = proxy.echoes().length;
    const current = startCli(['call', 'getPackages'], { EDGE_API_URL: proxy.url, EDGE_API_TOKEN: TOKEN });
    call = current;
    expect(await current.exited).toBe(1);
    expect(current.stderr()).toContain(message);
    expect(proxy.echoes().length - before).toBe(echoes);
    expect(leaks(new Map([['stdout', current.stdout()], ['stderr', current.stderr()]]))).toEqual([]);
  }, 30_000);
});
