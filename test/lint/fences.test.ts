// The folder fences of eslint.config.js: declared once (ALLOWED_IMPORTS), a
// circle nowhere, every src folder covered, and an import the list does not
// allow is an error — asked of ESLint itself, on the real config.
import { readdirSync } from 'node:fs';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ALLOWED_IMPORTS } from '../../eslint.config.js';

const allowed: Record<string, readonly string[]> = ALLOWED_IMPORTS;
const folders = readdirSync('src', { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();

/** Every folder `from` reaches through the allowed imports, directly or not. */
function reaches(from: string, seen = new Set<string>()): Set<string> {
  for (const next of allowed[from] ?? []) if (!seen.has(next)) reaches(next, seen.add(next));
  return seen;
}

/** Errors of no-restricted-imports for `code` as if it stood at `file`. */
async function fenced(file: string, code: string): Promise<string[]> {
  const [result] = await new ESLint().lintText(code, { filePath: file });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('folder fences', () => {
  it('name every src folder, and only those', () => {
    expect(Object.keys(allowed).sort()).toEqual(folders);
    for (const list of Object.values(allowed)) for (const f of list) expect(folders).toContain(f);
  });

  it('form no circle: no folder reaches itself through the allowed imports', () => {
    for (const f of folders) expect(reaches(f).has(f), f).toBe(false);
  });

  it('keep the simulator out of everything the daemon imports', () => {
    expect(reaches('daemon').has('simulator')).toBe(false);
  });

  it.each([
    ['src/collectors/access/x.ts', "import { Daemon } from '../../daemon/daemon.js';", 'src/daemon'],
    ['src/collectors/x.ts', "import { Exposition } from '../exporters/prometheus/exposition.js';", 'src/exporters'],
    ['src/exporters/x.ts', "import { loadConfig } from '../config/index.js';", 'src/config'],
    ['src/config/x.ts', "import type { Sample } from '../collectors/index.js';", 'src/collectors'],
    ['src/state/x.ts', "import type { Sample } from '../collectors/index.js';", 'src/collectors'],
    ['src/server/x.ts', "import { Daemon } from '../daemon/daemon.js';", 'src/daemon'],
    ['src/daemon/x.ts', "import { createSimulator } from '../simulator/index.js';", 'src/simulator'],
    ['src/simulator/x.ts', "import type { Sample } from '../collectors/index.js';", 'src/collectors'],
    // The rooms split out of collectors keep the flow one way: collectors know none of them,
    // counters no engine, the engine no forwarder.
    ['src/collectors/x.ts', "import { Scheduler } from '../engine/index.js';", 'src/engine'],
    ['src/collectors/targets/x.ts', "import { CounterLedger } from '../../counters/index.js';", 'src/counters'],
    ['src/collectors/x.ts', "import type { LogSink } from '../forwarder/index.js';", 'src/forwarder'],
    ['src/counters/x.ts', "import { Scheduler } from '../engine/index.js';", 'src/engine'],
    ['src/engine/x.ts', "import { WafEventForwarder } from '../forwarder/index.js';", 'src/forwarder'],
    ['src/engine/x.ts', "import { Exposition } from '../exporters/prometheus/exposition.js';", 'src/exporters'],
    ['src/forwarder/x.ts', "import { OtlpLogSink } from '../exporters/otel-logs/sink.js';", 'src/exporters'],
    // Outbound builds the transports from what the config resolved: it knows neither the config nor a client.
    ['src/outbound/x.ts', "import type { Config } from '../config/index.js';", 'src/config'],
    ['src/outbound/x.ts', "import { EdgeClient } from '../api/index.js';", 'src/api'],
    ['src/shared/x.ts', "import { maskUrl } from '../outbound/index.js';", 'src/outbound'],
  ])('%s: %s is refused', async (file, code, target) => {
    const errors = await fenced(file, `${code}\nexport const x = 1;\n`);
    expect(errors.some((e) => e.includes(target))).toBe(true);
  });

  it.each([
    ['src/collectors/x.ts', "import { loadConfig } from '../config/index.js';"],
    ['src/exporters/x.ts', "import type { Sample } from '../collectors/index.js';"],
    ['src/cli/x.ts', "import { createSimulator } from '../simulator/index.js';"],
    ['src/counters/x.ts', "import { seriesKey } from '../collectors/index.js';"],
    ['src/engine/x.ts', "import { CounterLedger } from '../counters/index.js';"],
    ['src/forwarder/x.ts', "import { scheduleOf } from '../engine/index.js';"],
    ['src/api/x.ts', "import { describeNetCause } from '../outbound/index.js';"],
    ['src/config/x.ts', "import { proxyCredentials } from '../outbound/index.js';"],
    ['src/exporters/x.ts', "import { createDispatcher } from '../outbound/index.js';"],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await fenced(file, `${code}\nexport const x = 1;\n`)).toEqual([]);
  });
});
