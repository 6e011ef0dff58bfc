// `doctor`'s clock_offset against a simulator whose clock runs behind or
// ahead of ours (the clockOffsetMs reading, POST /__admin/readings), by as
// much as a real account's might: the verdict, the offset it reports (within
// a bucket of the truth), the delay it advises and the exit code; and an
// account with no data at all in the last day, which alone is `unknown`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { doctorJson, startDoctorSim, type DoctorSim } from './doctor-helpers.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

let d: DoctorSim;
let dir: string;
let minutely: string;

beforeAll(async () => {
  d = await startDoctorSim();
  dir = mkdtempSync(join(tmpdir(), 'edge-doctor-clock-'));
  minutely = join(dir, 'minutely.yaml');
  writeFileSync(minutely, 'collectors:\n  access:\n    interval: 1m\n');
});
afterAll(async () => {
  await d.sim.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  const res = await fetch(`${d.url}/__admin/readings`, { method: 'DELETE' });
  expect(res.status).toBe(200);
  d.sim.faults.set([]);
  d.sim.reset();
});

async function offsetBy(ms: number): Promise<void> {
  const res = await fetch(`${d.url}/__admin/readings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clockOffsetMs: ms }) });
  expect(res.status).toBe(200);
}

/** The offset the observed line names, in ms (positive: behind), from its bucket count. */
function reported(line: string, size: number): number {
  const behind = /the newest point starts \S+ \((\d+) bucket\(s\)\) before our current bucket/.exec(line);
  if (behind) return Number(behind[1]) * size;
  const ahead = /the upstream lists points up to \S+ \((\d+) bucket\(s\)\) after our current bucket/.exec(line);
  if (ahead) return -Number(ahead[1]) * size;
  throw new Error(`no offset in ${line}`);
}

describe('doctor clock_offset against an upstream clock behind or ahead of ours', () => {
  it.each([
    ['10 minutes behind, 5m buckets', 10 * MIN, '5m', '15m'],
    ['10 minutes behind, 1m buckets (was "no points up to now", exit 0)', 10 * MIN, '1m', '15m'],
    ['3 hours behind', 3 * HOUR, '5m', '185m'],
    ['3 hours behind, 1m buckets', 3 * HOUR, '1m', '185m'],
    ['a day behind', DAY, '5m', '1d'],
    ['a day behind, 1m buckets', DAY, '1m', '1d'],
  ] as const)('%s: differs, the offset within a bucket, the delay to set, exit 1', async (_name, offset, interval, delay) => {
    await offsetBy(offset);
    const r = await doctorJson(d, d.env, interval === '1m' ? ['--config', minutely] : []);
    const size = interval === '1m' ? MIN : 5 * MIN;
    const check = r.check('clock_offset');
    expect(check).toMatchObject({ verdict: 'differs', set: [{ key: 'collectors.defaults.delay', value: delay }] });
    expect(check.observed[0]).toContain(`access (describeL7DataV2, ${interval})`);
    expect(Math.abs(reported(check.observed[0] ?? '', size) - offset)).toBeLessThanOrEqual(size);
    expect(r.code).toBe(1);
    expect(r.report.summary.exitCode).toBe(1);
  });

  it.each([
    ['5m buckets', '5m'],
    ['1m buckets', '1m'],
  ] as const)('10 minutes ahead, %s: differs, named as ahead, nothing to set, exit 1', async (_name, interval) => {
    await offsetBy(-10 * MIN);
    const r = await doctorJson(d, d.env, interval === '1m' ? ['--config', minutely] : []);
    const size = interval === '1m' ? MIN : 5 * MIN;
    const check = r.check('clock_offset');
    expect(check).toMatchObject({ verdict: 'differs', set: [] });
    expect(check.observed[0]).toMatch(/its clock runs about \S+ ahead of ours/);
    expect(Math.abs(reported(check.observed[0] ?? '', size) + 10 * MIN)).toBeLessThanOrEqual(size);
    expect(check.note).toMatch(/counting is unaffected/);
    expect(r.code).toBe(1);
  });

  it('in step: ok, exit 0', async () => {
    const r = await doctorJson(d, d.env, ['--config', minutely]);
    expect(r.check('clock_offset')).toMatchObject({ verdict: 'ok', set: [] });
    expect(r.check('clock_offset').observed[0]).toBe('access (describeL7DataV2, 1m): the newest point is our current bucket');
    expect(r.code).toBe(0);
  });

  it('an account with no data at all in the last day: unknown, saying so, after three ranges', async () => {
    // Every statistics answer `data: null`: nothing listed anywhere.
    d.sim.faults.set([{ dataNull: true, operations: ['describeL7DataV2'] }]);
    const r = await doctorJson(d, d.env, ['--config', minutely]);
    const check = r.check('clock_offset');
    expect(check.verdict).toBe('unknown');
    expect(check.observed[0]).toMatch(
      /^access \(describeL7DataV2, 1m\): no point at all since 2026-03-01 12:07:00 \(the last day, asked in 3 ranges\): the account has no data in the last day/,
    );
  });
});
