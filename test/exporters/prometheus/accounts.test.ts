// What /metrics serves of several accounts: each account's families and
// self-metrics joined family by family with `account` first in every series
// (one HELP/TYPE per family, series in account then label order), the
// daemon's own families (build, config, push pipes) and the process metrics
// once without it; an unnamed account served exactly as a FamilyStore and
// SelfMetrics alone would serve it. The expected text is written out here.
import { describe, expect, it } from 'vitest';
import { AccountsView } from '../../../src/exporters/prometheus/accounts.js';
import { Exposition } from '../../../src/exporters/prometheus/exposition.js';
import { FamilyStore } from '../../../src/exporters/prometheus/family-store.js';
import { SelfMetrics } from '../../../src/exporters/prometheus/self-metrics.js';
import { def, sample } from './fixtures.js';

const requests = def('edge_domain_requests_total', 'counter', ['domain'], 'requests', 'Requests served.');
const noGauges = new Map();

function account(name: string, counts: Record<string, number>) {
  const families = new FamilyStore();
  families.define([requests]);
  families.publish('access', { counters: Object.entries(counts).map(([domain, n]) => sample(requests.name, { domain }, n)), gauges: noGauges });
  const self = new SelfMetrics({ families, version: '1.0.0', processMetrics: false });
  return { name, families, self };
}

function daemonSelf(): SelfMetrics {
  return new SelfMetrics({ families: new FamilyStore(), version: '1.0.0', processMetrics: false });
}

async function text(view: AccountsView): Promise<string> {
  return (await new Exposition({ families: view, self: view }).render('text')).body.toString('utf8');
}

/** The lines of `family` (its HELP, TYPE and samples). */
function lines(body: string, family: string): string[] {
  return body.split('\n').filter((l) => l.startsWith(`${family}{`) || l.startsWith(`${family} `) || l.endsWith(` ${family} counter`) || l.endsWith(` ${family} gauge`) || l.startsWith(`# HELP ${family} `));
}

describe('AccountsView', () => {
  it('joins every account\'s series of a family under one header, account first, the same domain name apart', async () => {
    const view = new AccountsView(daemonSelf(), true);
    view.set([account('us', { 'www.example.com': 3 }), account('eu', { 'www.example.com': 5, 'a.example.com': 1 })]);
    expect(lines(await text(view), requests.name)).toEqual([
      '# HELP edge_domain_requests_total Requests served.',
      '# TYPE edge_domain_requests_total counter',
      'edge_domain_requests_total{account="eu",domain="a.example.com"} 1',
      'edge_domain_requests_total{account="eu",domain="www.example.com"} 5',
      'edge_domain_requests_total{account="us",domain="www.example.com"} 3',
    ]);
    expect(view.def(requests.name)?.labels).toEqual(['account', 'domain']);
  });

  it('puts account on each account\'s self-metrics and none on the daemon\'s own', async () => {
    const daemon = daemonSelf();
    daemon.recordConfigLoad(true, 1_700_000_000_000);
    const eu = account('eu', {});
    const us = account('us', {});
    eu.self.recordRetry('describeL7DataV2');
    us.self.recordRetry('describeL7DataV2');
    us.self.recordRetry('describeL7DataV2');
    // An account's recording of a daemon-wide family is not served: the daemon's is.
    eu.self.recordConfigLoad(false, 1);
    const view = new AccountsView(daemon, true);
    view.set([eu, us]);
    const body = await text(view);
    expect(lines(body, 'edge_exporter_upstream_retries_total').filter((l) => !l.startsWith('#'))).toEqual([
      'edge_exporter_upstream_retries_total{account="eu",operation="describeL7DataV2"} 1',
      'edge_exporter_upstream_retries_total{account="us",operation="describeL7DataV2"} 2',
    ]);
    expect(lines(body, 'edge_exporter_config_last_reload_successful').filter((l) => !l.startsWith('#'))).toEqual(['edge_exporter_config_last_reload_successful 1']);
    expect(lines(body, 'edge_exporter_build_info').filter((l) => !l.startsWith('#'))).toHaveLength(1);
    expect(lines(body, 'edge_exporter_build_info').some((l) => l.includes('account='))).toBe(false);
    // Every self family once, listed even when empty.
    expect(body.split('\n').filter((l) => l === '# TYPE edge_exporter_upstream_retries_total counter')).toHaveLength(1);
  });

  it('serves an unnamed account as its own store and self-metrics would, byte for byte', async () => {
    const only = account('default', { 'www.example.com': 5 });
    only.self.recordRetry('describeL7DataV2');
    const daemon = daemonSelf();
    daemon.recordConfigLoad(true, 1_700_000_000_000);
    only.self.recordConfigLoad(true, 1_700_000_000_000);
    const view = new AccountsView(daemon, false);
    view.set([only]);
    const alone = (await new Exposition({ families: only.families, self: only.self }).render('text')).body.toString('utf8');
    expect(await text(view)).toBe(alone);
  });

  it('moves its generation when an account publishes or the accounts change, and keeps a family\'s joined series otherwise', () => {
    const view = new AccountsView(daemonSelf(), true);
    const eu = account('eu', { 'www.example.com': 5 });
    view.set([eu]);
    const g1 = view.generation;
    const first = view.snapshot().find((f) => f.def.name === requests.name)?.series;
    expect(view.generation).toBe(g1);
    expect(view.snapshot().find((f) => f.def.name === requests.name)?.series).toBe(first);
    eu.families.publish('access', { counters: [sample(requests.name, { domain: 'www.example.com' }, 6)], gauges: noGauges });
    expect(view.generation).not.toBe(g1);
    const g2 = view.generation;
    view.set([eu, account('us', {})]);
    expect(view.generation).not.toBe(g2);
    expect(view.snapshot().find((f) => f.def.name === requests.name)?.series.map((s) => [...s.labelValues, s.value])).toEqual([['eu', 'www.example.com', 6]]);
  });

  it('labels again only the series of the account that changed', () => {
    const view = new AccountsView(daemonSelf(), true);
    const eu = account('eu', { 'www.example.com': 5 });
    const us = account('us', { 'www.example.com': 3 });
    view.set([eu, us]);
    const series = () => view.snapshot().find((f) => f.def.name === requests.name)?.series ?? [];
    const [euBefore, usBefore] = series();
    us.families.publish('access', { counters: [sample(requests.name, { domain: 'www.example.com' }, 4)], gauges: noGauges });
    const [euAfter, usAfter] = series();
    expect(euAfter).toBe(euBefore);
    expect(usAfter).not.toBe(usBefore);
    expect([euAfter, usAfter].map((s) => [...(s?.labelValues ?? []), s?.value])).toEqual([['eu', 'www.example.com', 5], ['us', 'www.example.com', 4]]);
  });
});
