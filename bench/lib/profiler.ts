// A V8 CPU profile of this process's main thread over one piece of work,
// through the inspector (no restart with `node --cpu-prof`, and only the
// work itself is in it, not the start-up and module loading around it).
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

/**
 * Microseconds between samples, V8's (and `node --cpu-prof`'s) default: a
 * 50k-event run gives some 15,000 busy samples; 250 µs cost visibly more CPU.
 */
const SAMPLING_INTERVAL_US = 1000;

/** Runs `work` under the sampling profiler; the profile (.cpuprofile JSON) is written to `file`. */
export async function profiled<T>(file: string, work: () => Promise<T>): Promise<{ result: T; profile: unknown }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
    await session.post('Profiler.start');
    const result = await work();
    const { profile } = await session.post('Profiler.stop');
    await writeFile(file, JSON.stringify(profile));
    return { result, profile };
  } finally {
    session.disconnect();
  }
}
