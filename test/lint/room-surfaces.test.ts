// The exporters reach the rooms below them (collectors, counters, engine,
// forwarder, outbound) only through each room's index.ts (the surface it
// declares), and the daemon, which wires every family, only through those or a
// collectors folder's own index.ts; the upstream client and the config reach
// outbound through its index.ts too: asked of ESLint itself, on the real
// config, and checked against every import in those folders.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/** Errors of no-restricted-imports for `code` as if it stood at `file`. */
async function fenced(file: string, code: string): Promise<string[]> {
  const [result] = await new ESLint().lintText(`${code}\nexport const x = 1;\n`, { filePath: file });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const ROOMS = ['collectors', 'counters', 'engine', 'forwarder', 'outbound'];

/** Every relative import specifier into one of the fenced rooms in the .ts files under `dir`. */
function roomImports(dir: string): string[] {
  const out: string[] = [];
  const into = new RegExp(`from\\s+'([^']*/(?:${ROOMS.join('|')})/[^']*)'`, 'g');
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    for (const m of text.matchAll(into)) out.push(m[1]!);
  }
  return out;
}

describe('the room surfaces', () => {
  it.each([
    ['src/exporters/prometheus/x.ts', "import { seriesKey } from '../../collectors/series/keys.js';"],
    ['src/exporters/prometheus/x.ts', "import { CONTRACT_CHECKS } from '../../collectors/contract/checks.js';"],
    ['src/exporters/prometheus/x.ts', "import type { Sample } from '../../collectors/collector.js';"],
    ['src/exporters/prometheus/x.ts', "import type { RunReport } from '../../engine/reports.js';"],
    ['src/exporters/otel-logs/x.ts', "import type { LogEvent } from '../../forwarder/log-sink.js';"],
    ['src/exporters/remote-write/x.ts', "import { HistoryQueues } from '../../counters/history/index.js';"],
    ['src/exporters/remote-write/x.ts', "import { createDispatcher } from '../../outbound/dispatcher.js';"],
  ])('%s: %s is refused (exporters use each room\'s index.js only)', async (file, code) => {
    const errors = await fenced(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('only through their index.js');
  });

  it.each([
    ['src/daemon/wiring/x.ts', "import type { PolledCollector } from '../../engine/sample-job/job.js';"],
    ['src/daemon/wiring/x.ts', "import { estimateRequests } from '../../engine/requests.js';"],
    ['src/daemon/x.ts', "import { DeliveryState } from '../forwarder/delivery-state.js';"],
    ['src/daemon/x.ts', "import { CounterTotals } from '../counters/ledger.js';"],
    ['src/daemon/x.ts', "import { TargetDiscovery } from '../collectors/targets/discovery.js';"],
    ['src/daemon/wiring/x.ts', "import { readTlsFiles } from '../../outbound/tls-files.js';"],
  ])('%s: %s is refused (the daemon uses index files only)', async (file, code) => {
    const errors = await fenced(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("collectors folder's index.js");
  });

  it.each([
    ['src/api/x.ts', "import { proxyFor } from '../outbound/proxy-route.js';"],
    ['src/config/x.ts', "import { proxyCredentials } from '../outbound/url-credentials.js';"],
  ])('%s: %s is refused (outbound through its index.js only)', async (file, code) => {
    const errors = await fenced(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('src/outbound only through its index.js');
  });

  it.each([
    ['src/exporters/prometheus/x.ts', "import { seriesKey, type Sample } from '../../collectors/index.js';"],
    ['src/exporters/remote-write/x.ts', "import type { TimedSample } from '../../counters/index.js';"],
    ['src/daemon/wiring/x.ts', "import { Scheduler } from '../../engine/index.js';"],
    ['src/daemon/wiring/x.ts', "import { WafEventForwarder } from '../../forwarder/index.js';"],
    ['src/daemon/wiring/x.ts', "import { createAccessCollector } from '../../collectors/access/index.js';"],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await fenced(file, code)).toEqual([]);
  });

  it('holds for every import the exporters and the daemon make today', () => {
    const exporters = roomImports('src/exporters');
    expect(exporters.length).toBeGreaterThan(0);
    for (const spec of exporters) expect(spec, spec).toMatch(/\/(collectors|counters|engine|forwarder|outbound)\/index\.js$/);
    const daemon = roomImports('src/daemon');
    expect(daemon.length).toBeGreaterThan(0);
    for (const spec of daemon) expect(spec, spec).toMatch(/\/((collectors\/([\w-]+\/)?)|counters\/|engine\/|forwarder\/|outbound\/)index\.js$/);
    for (const spec of [...roomImports('src/api'), ...roomImports('src/config')]) expect(spec, spec).toMatch(/\/outbound\/index\.js$/);
  });
});
