// The exporters reach the collectors only through collectors/index.ts (the
// surface it declares), and the daemon, which wires every family, only
// through that or a collectors folder's own index.ts: asked of ESLint itself,
// on the real config, and checked against every import in those folders.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/** Errors of no-restricted-imports for `code` as if it stood at `file`. */
async function fenced(file: string, code: string): Promise<string[]> {
  const [result] = await new ESLint().lintText(`${code}\nexport const x = 1;\n`, { filePath: file });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

/** Every relative import specifier into src/collectors in the .ts files under `dir`. */
function collectorImports(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    for (const m of text.matchAll(/from\s+'([^']*\/collectors\/[^']*)'/g)) out.push(m[1]!);
  }
  return out;
}

describe('the collectors surface', () => {
  it.each([
    ['src/exporters/prometheus/x.ts', "import { seriesKey } from '../../collectors/series/keys.js';"],
    ['src/exporters/prometheus/x.ts', "import { CONTRACT_CHECKS } from '../../collectors/contract/checks.js';"],
    ['src/exporters/prometheus/x.ts', "import type { Sample } from '../../collectors/collector.js';"],
    ['src/exporters/otel-logs/x.ts', "import type { LogEvent } from '../../collectors/log-sink.js';"],
    ['src/exporters/remote-write/x.ts', "import { HistoryQueues } from '../../collectors/history/index.js';"],
  ])('%s: %s is refused (exporters use collectors/index.js only)', async (file, code) => {
    const errors = await fenced(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('only through collectors/index.js');
  });

  it.each([
    ['src/daemon/wiring/x.ts', "import type { PolledCollector } from '../../collectors/sample-job/job.js';"],
    ['src/daemon/wiring/x.ts', "import { estimateRequests } from '../../collectors/requests.js';"],
    ['src/daemon/x.ts', "import { DeliveryState } from '../collectors/waf-events/delivery-state.js';"],
  ])('%s: %s is refused (the daemon uses index files only)', async (file, code) => {
    const errors = await fenced(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("collectors folder's index.js");
  });

  it.each([
    ['src/exporters/prometheus/x.ts', "import { seriesKey, type Sample } from '../../collectors/index.js';"],
    ['src/daemon/wiring/x.ts', "import { Scheduler } from '../../collectors/index.js';"],
    ['src/daemon/wiring/x.ts', "import { createAccessCollector } from '../../collectors/access/index.js';"],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await fenced(file, code)).toEqual([]);
  });

  it('holds for every import the exporters and the daemon make today', () => {
    const exporters = collectorImports('src/exporters');
    expect(exporters.length).toBeGreaterThan(0);
    for (const spec of exporters) expect(spec, spec).toMatch(/\/collectors\/index\.js$/);
    const daemon = collectorImports('src/daemon');
    expect(daemon.length).toBeGreaterThan(0);
    for (const spec of daemon) expect(spec, spec).toMatch(/\/collectors\/([\w-]+\/)?index\.js$/);
  });
});
