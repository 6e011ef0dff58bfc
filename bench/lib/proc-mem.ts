// Memory of a process from /proc (Linux only): its resident set now (VmRSS)
// and the kernel's peak of it since the process started (VmHWM), which no
// sampling interval can miss.
import { readFile } from 'node:fs/promises';

interface ProcMemory {
  /** Bytes resident now (VmRSS). */
  readonly rss: number;
  /** Peak bytes resident so far (VmHWM). */
  readonly hwm: number;
}

/** VmRSS and VmHWM of `pid`, in bytes, from /proc/<pid>/status. */
export async function procMemory(pid: number): Promise<ProcMemory> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}
