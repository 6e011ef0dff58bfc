// Shared by the doctor tests: a simulator on loopback on a pinned clock, the
// doctor run in process with exactly the environment given and "now" read
// from that same clock (against a real account it is the host's), and the
// report read back from its JSON. A pinned clock keeps every answer the same
// from run to run: a range that straddles an hour boundary, or a request that
// crosses a bucket's end, happens at the instant the test chose or never.
import { expect } from 'vitest';
import { OPERATION_NAMES, OPERATIONS, type OperationName } from '../../src/api/operations.js';
import type { CheckId, CheckResult, DoctorReport } from '../../src/doctor/types.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { cli, type CliResult } from './helpers.js';

export const TOKEN = 'doctor-token-5d1e9a';

export interface DoctorSim {
  readonly sim: Simulator;
  readonly url: string;
  readonly env: Record<string, string>;
}

/** 2026-03-02 12:07:30 in the platform zone: inside a bucket of every interval, as most instants are. */
const DOCTOR_NOW = Date.UTC(2026, 2, 2, 4, 7, 30);

export async function startDoctorSim(): Promise<DoctorSim> {
  const sim = createSimulator({
    clock: { mode: 'fixed', start: DOCTOR_NOW },
    tokens: [{ token: TOKEN, permissions: '*' }, { token: 'no-permissions-3c7b', permissions: [] }],
  });
  const { url } = await sim.listen('127.0.0.1', 0);
  return { sim, url, env: { EDGE_API_URL: url, EDGE_API_TOKEN: TOKEN } };
}

const WRITE_OPERATIONS: readonly OperationName[] = OPERATION_NAMES.filter((op) => OPERATIONS[op].write);

/** Write operations the simulator saw since its last reset; the doctor must never send one. */
export function writesSeen(sim: Simulator): OperationName[] {
  const counts = sim.requestCounts();
  return WRITE_OPERATIONS.filter((op) => (counts[op] ?? 0) > 0);
}

export function requestsSeen(sim: Simulator): number {
  return Object.values(sim.requestCounts()).reduce((a, n) => a + (n ?? 0), 0);
}

interface JsonRun extends CliResult {
  readonly report: DoctorReport;
  check(id: CheckId): CheckResult;
}

/** `doctor --json` in process; every run also proves no write was sent. */
export async function doctorJson(d: DoctorSim, env: Record<string, string> = d.env, extra: string[] = []): Promise<JsonRun> {
  const r = await cli(['doctor', '--json', ...extra], env, undefined, { clock: d.sim.clock });
  expect(writesSeen(d.sim)).toEqual([]);
  const report = JSON.parse(r.out) as DoctorReport;
  return {
    ...r, report,
    check(id) {
      const found = report.checks.find((c) => c.id === id);
      if (!found) throw new Error(`no check ${id} in ${r.out.slice(0, 300)}`);
      return found;
    },
  };
}

/** `doctor` (text) in process, with the simulator's clock. */
export function doctorText(d: DoctorSim, argv: string[] = [], env: Record<string, string> = d.env): Promise<CliResult> {
  return cli(['doctor', ...argv], env, undefined, { clock: d.sim.clock });
}

/** id -> verdict, from the JSON report. */
export function verdicts(report: DoctorReport): Record<string, string> {
  return Object.fromEntries(report.checks.map((c) => [c.id, c.verdict]));
}

/** id -> verdict, from the text table: each block opens with `<id>  <verdict>  assumed`. */
export function textVerdicts(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/^(\w+) +(ok|differs|unknown) +assumed /gm)) out[m[1]!] = m[2]!;
  return out;
}
