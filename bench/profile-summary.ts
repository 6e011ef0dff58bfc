// Summarises a .cpuprofile of the WAF forwarder (bench/waf.ts --cpu-prof, or
// any `node --cpu-prof` of the daemon) by category and top functions, in µs
// per event: `node --import tsx bench/profile-summary.ts FILE --events=N [--top=N]
// [--main-cpu-ms=MS]`, the last (the profiled thread's CPU time over the run,
// e.g. from /proc) to give µs per event as shares of CPU rather than of
// sampled wall-clock time.
// Not a benchmark of its own (bench/run.ts does not list it).
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseProfile, profileMarkdown, summarizeProfile } from './lib/cpu-profile.js';

const { values, positionals } = parseArgs({ options: { events: { type: 'string' }, top: { type: 'string' }, 'main-cpu-ms': { type: 'string' } }, allowPositionals: true });
const [file] = positionals;
const events = Number(values.events ?? Number.NaN);
if (file === undefined || !(events > 0)) {
  process.stderr.write('usage: node --import tsx bench/profile-summary.ts FILE.cpuprofile --events=N [--top=N] [--main-cpu-ms=MS]\n');
  process.exitCode = 2;
} else {
  const profile = parseProfile(JSON.parse(await readFile(file, 'utf8')));
  process.stdout.write(`${profileMarkdown(summarizeProfile(profile, Number(values.top ?? '15')), events,
    values['main-cpu-ms'] === undefined ? undefined : Number(values['main-cpu-ms']))}\n`);
}
