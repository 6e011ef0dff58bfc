// CPU time of a process from /proc (Linux only): user and system separately,
// every thread together and its main thread alone. The main thread is where
// the JavaScript runs (what a V8 CPU profile sees); the others are V8's
// helpers (concurrent GC, compilers) and libuv's pool (fs calls, fsync).
import { readFile } from 'node:fs/promises';

/** USER_HZ: /proc reports CPU time in these ticks; 100 on every Linux this runs on (`getconf CLK_TCK`). */
const CLOCK_TICKS = 100;

export interface CpuTimes {
  /** Milliseconds of user CPU. */
  readonly userMs: number;
  /** Milliseconds of system (kernel) CPU. */
  readonly systemMs: number;
}

export interface ProcessCpu {
  /** Every thread, also those that have exited (the process's own utime/stime). */
  readonly all: CpuTimes;
  /** The main thread alone (/proc/<pid>/task/<pid>). */
  readonly main: CpuTimes;
}

/** utime and stime of a /proc/.../stat file. */
async function statTimes(file: string): Promise<CpuTimes> {
  const stat = await readFile(file, 'utf8');
  // Fields after the command (which may hold spaces) begin after its closing parenthesis; utime and stime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { userMs: (Number(fields[11]) * 1000) / CLOCK_TICKS, systemMs: (Number(fields[12]) * 1000) / CLOCK_TICKS };
}

/** The CPU time `pid` has used so far (10 ms ticks). */
export async function processCpu(pid: number): Promise<ProcessCpu> {
  const [all, main] = await Promise.all([statTimes(`/proc/${pid}/stat`), statTimes(`/proc/${pid}/task/${pid}/stat`)]);
  return { all, main };
}

/** `after - before`, field by field. */
export function cpuSince(before: ProcessCpu, after: ProcessCpu): ProcessCpu {
  const minus = (a: CpuTimes, b: CpuTimes): CpuTimes => ({ userMs: a.userMs - b.userMs, systemMs: a.systemMs - b.systemMs });
  return { all: minus(after.all, before.all), main: minus(after.main, before.main) };
}

