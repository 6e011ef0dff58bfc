import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderMetricsReference } from '../../src/daemon/docs.js';
import { allCollectors } from '../../src/daemon/wiring/collectors.js';
import { configSchema, resolveCollectorOptions } from '../../src/config/index.js';

describe('docs/metrics.md', () => {
  it('is up to date (run npm run docs)', () => {
    expect(readFileSync('docs/metrics.md', 'utf8'), 'docs/metrics.md is stale: run npm run docs').toBe(renderMetricsReference());
  });

  it('lists every family of every collector, with its source operation', () => {
    const doc = readFileSync('docs/metrics.md', 'utf8');
    const collectors = allCollectors(resolveCollectorOptions(configSchema.parse({ simulator: { enabled: true } })));
    const families = collectors.flatMap((c) => c.families);
    expect(families.length).toBeGreaterThan(30);
    for (const f of families) expect(doc).toContain(`| \`${f.name}\` | ${f.type} |`);
    for (const f of families) expect(doc).toContain(`\`${f.source.operation}\``);
  });
});
