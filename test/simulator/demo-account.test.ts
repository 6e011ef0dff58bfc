// The demo's account, the one `npm start` runs against (config.example.yaml's
// simulator seed and domain count), has something on every panel from the
// first look: a CC attack in every half hour, WAF denies of every severity the
// document lists, and an in-use layer-4 package expiring within the 14 days
// the expiry alert watches. Read as the daemon reads it: its client and its
// own request builders over loopback, on a pinned clock.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EdgeClient, platformClock } from '../../src/api/index.js';
import { SEVERITY_LEVELS } from '../../src/api/schemas/waf-log.js';
import { ccRequest } from '../../src/collectors/cc-attack/fetch.js';
import { parseCcAnswer } from '../../src/collectors/cc-attack/parse.js';
import { readWindow } from '../../src/forwarder/fetch.js';
import { loadConfig } from '../../src/config/load.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';

const EXAMPLE = fileURLToPath(new URL('../../config.example.yaml', import.meta.url));
const { seed, domains, token } = loadConfig({ file: EXAMPLE, env: {} }).simulator;
/** 2026-11-26 12:00 in the platform zone (UTC+8). */
const T0 = Date.UTC(2026, 10, 26, 4, 0, 0);
const MIN = 60_000;
const DAY = 86_400_000;
const tz = platformClock('+08:00');
/** prometheus/edge-exporter.alerts.yml: EdgeL4PackageExpiringSoon fires under 14 days. */
const ALERT_DAYS = 14;

describe.each([seed, 7])('the demo account (seed %i)', (accountSeed) => {
  let sim: Simulator;
  let client: EdgeClient;
  const signal = new AbortController().signal;

  beforeAll(async () => {
    sim = createSimulator({ seed: accountSeed, domains, tokens: [{ token, permissions: '*' }], clock: { mode: 'fixed', start: T0 } });
    const { url } = await sim.listen('127.0.0.1', 0);
    client = new EdgeClient({ apiUrl: url, token, retry: { attempts: 1 }, timeoutMs: 5000 });
  });

  afterAll(async () => {
    await client?.close();
    await sim?.close();
  });

  it('has a CC attack in every half hour of a day, seen by the counter\'s trend and the attack summary', async () => {
    const names = (await client.listDomains({ filters: [], searchHeader: { isActive: [] }, pageNum: 1, pageSize: 100 }, { signal })).rows.map((r) => r.domainName);
    expect(names).toHaveLength(domains);
    const quiet: string[] = [];
    for (let begin = T0 - DAY; begin < T0; begin += 30 * MIN) {
      const span = { beginTime: tz.formatDateTime(begin), endTime: tz.formatDateTime(begin + 30 * MIN - 1000) };
      const answer = await client.describeL7CCAttack(ccRequest(names, '1m', span, ['ccPolicyTrend', 'attack_detail']), { signal });
      const parsed = parseCcAnswer(answer.data);
      const attacks = (parsed.trend ?? []).reduce((sum, [, v]) => sum + (v ?? 0), 0);
      if (!(attacks > 0 && (parsed.detail?.attackedDomains ?? 0) > 0)) quiet.push(span.beginTime);
    }
    expect(quiet).toEqual([]);
  });

  it.each(SEVERITY_LEVELS)('has WAF denies of severity %s in every quarter hour of the first hour', async (severity) => {
    for (let start = T0 - 60 * MIN; start < T0; start += 15 * MIN) {
      const records = [];
      for await (const page of readWindow({ client, tz, query: { pageSize: 100, severity }, signal }, { startMs: start, endMs: start + 15 * MIN })) records.push(...page.records);
      expect(records.length, `${tz.formatDateTime(start)} ${severity}`).toBeGreaterThan(0);
      expect(records.every((r) => r.response.httpCode === 417 && r.severityLevel === severity)).toBe(true);
    }
  });

  it(`has an in-use layer-4 package expiring within ${ALERT_DAYS} days, and it is not expired`, async () => {
    const rows = (await client.listLayer4Packages({ pageNum: 1, pageSize: 100 }, { signal })).rows;
    const soon = rows.filter((r) => r.activate === 1 && r.lastday !== null && r.lastday !== undefined && r.lastday > 0 && r.lastday < ALERT_DAYS);
    expect(soon.map((r) => r.oid)).toHaveLength(1);
  });
});
