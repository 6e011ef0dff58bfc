// The run's deadline: an operation that never answers costs only the checks
// that needed it, which say "not reached"; the rest are judged, and the run
// ends on time with its in-flight requests aborted.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EdgeClient } from '../../src/api/index.js';
import { loadConfig } from '../../src/config/index.js';
import { setupFrom, runDoctor } from '../../src/doctor/index.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';

let sim: Simulator;
let client: EdgeClient;

beforeAll(async () => {
  sim = createSimulator({ clock: { mode: 'real' } });
  const { url } = await sim.listen('127.0.0.1', 0);
  client = new EdgeClient({ apiUrl: url, token: 'sim-token', retry: { attempts: 1 } });
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

it('marks what the deadline cut short as not reached and judges the rest', async () => {
  sim.faults.add({ hang: true, operations: ['describeLogV2'] });
  const setup = setupFrom(loadConfig({ text: 'upstream:\n  api_url: http://127.0.0.1:1\n  token: t0ken-x\n', env: {} }));
  const started = performance.now();
  const report = await runDoctor({ client, setup, log: createLogger({ level: 'silent' }), signal: new AbortController().signal, deadlineMs: 1_500 });
  expect(performance.now() - started).toBeLessThan(5_000);
  const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]));
  expect(byId.timestamp_offset).toMatchObject({ verdict: 'unknown', observed: ['deny records of the last hour: not reached within the 2 s deadline'] });
  expect(byId.out_of_range?.observed).toContain('WAF logs: not reached within the 2 s deadline');
  // The statistics answered in time: their checks are judged.
  expect(byId.bandwidth_unit?.verdict).toBe('ok');
  expect(byId.timezone?.verdict).toBe('ok');
  expect(report.summary).toMatchObject({ differs: 0, refused: false, exitCode: 0 });
});
