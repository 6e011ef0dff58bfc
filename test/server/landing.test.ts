// The status page as rendered from a status: notices, state and readiness,
// every job's row (collectors, the WAF forwarder, the remote-write sender)
// with its outcome, error (code, address, hint) and lag, the last reload,
// contract mismatches, the upstream, and the page's own refresh and phone
// layout. Everything escaped.
import { describe, expect, it } from 'vitest';
import { renderLanding } from '../../src/server/landing.js';
import type { DaemonStatus } from '../../src/server/index.js';

const status = (over: Partial<DaemonStatus> = {}): DaemonStatus => ({ state: 'running', ready: true, jobs: [], notices: [], contractMismatches: [], ...over });
const T = Date.UTC(2026, 10, 26, 12, 0, 0);

describe('renderLanding notices', () => {
  it('shows each notice once, escaped, before the jobs table', () => {
    const html = renderLanding('1.0', status({ notices: ['upstream.tls.insecure_skip_verify is true', 'otlp: cannot reach <host>:4318 (ECONNREFUSED) & more'] }));
    expect(html).toContain('<p class="error">upstream.tls.insecure_skip_verify is true</p>');
    expect(html).toContain('<p class="error">otlp: cannot reach &#60;host&#62;:4318 (ECONNREFUSED) &#38; more</p>');
    expect(html.indexOf('insecure_skip_verify')).toBeLessThan(html.indexOf('<table>'));
  });

  it('shows none when there are none', () => {
    expect(renderLanding('1.0', status())).not.toContain('<p class="error">');
  });

  it('says the daemon\'s state and whether it is ready', () => {
    expect(renderLanding('1.0', status())).toContain('<dt>state</dt><dd>running, ready</dd>');
    expect(renderLanding('1.0', status({ state: 'stopping', ready: false }))).toContain('<dt>state</dt><dd>stopping, not ready</dd>');
  });
});

describe('renderLanding jobs', () => {
  const html = renderLanding('1.0', status({
    jobs: [
      { name: 'usage', kind: 'collector', running: false, lastRunAt: T, lastSuccessAt: T, lastOutcome: 'success', lagSeconds: 754.4 },
      {
        name: 'waf-events', kind: 'forwarder', running: true, lastRunAt: T, lastOutcome: 'error', lagSeconds: 3600.677,
        failing: { since: T + 1000, attempts: 7 },
        lastError: { code: 'EDGE_DELIVERY', message: '20 log records not confirmed: <b>Service Unavailable</b>', address: '127.0.0.1:4318', hint: 'start a collector' },
      },
      { name: 'remote-write', kind: 'sender', running: false },
    ],
  }));
  const rowOf = (name: string): string => html.match(new RegExp(`<tr id="job-${name}">.*?</tr>`))?.[0] ?? '';

  it('gives every job a row, with what its lag measures', () => {
    expect(rowOf('usage')).toContain('<td class="t" data-label="data lag"><span>754 s</span> <span>(12 min 34 s)</span></td>');
    expect(rowOf('usage')).toContain('<span class="success">success</span>');
    expect(rowOf('waf-events')).toContain('<td class="t" data-label="checkpoint lag"><span>3601 s</span> <span>(1 h 0 min 1 s)</span></td>');
    expect(rowOf('remote-write')).toContain('<span class="none">not run yet</span>');
    expect(rowOf('remote-write')).toContain('<td class="t" data-label="newest sample pushed">—</td>');
  });

  it('shows a delivery retried in place as failing, with code, address and hint, escaped', () => {
    const row = rowOf('waf-events');
    expect(row).toContain('<span class="error">error, retrying: 7 attempts failed since 2026-11-26 12:00:01Z</span>');
    expect(row).toContain('<code>EDGE_DELIVERY</code> 20 log records not confirmed: &#60;b&#62;Service Unavailable&#60;/b&#62;');
    expect(row).toContain('address: <code>127.0.0.1:4318</code>');
    expect(row).toContain('hint: start a collector');
    expect(html).not.toContain('<b>');
  });
});

describe('renderLanding summary', () => {
  it('shows the upstream, a refused reload with its reason, and the mismatches found by check', () => {
    const html = renderLanding('1.0', status({
      upstream: 'https://[REDACTED]@api.example.com/?token=REDACTED',
      reload: { at: T, ok: false, message: 'server.listen: changed; it is applied only by a restart <now>' },
      contractMismatches: [{ check: 'bucket_width', count: 0 }, { check: 'totals', count: 3 }],
    }));
    expect(html).toContain('<dt>upstream</dt><dd><code>https://[REDACTED]@api.example.com/?token=REDACTED</code></dd>');
    expect(html).toContain('<span class="error">refused</span> at 2026-11-26 12:00:00Z; the previous configuration still runs: server.listen: changed; it is applied only by a restart &#60;now&#62;');
    expect(html).toContain('<dt>contract mismatches</dt><dd><span class="error">totals: 3</span></dd>');
  });

  it('shows what became of the WAF events read, when the forwarder runs: summarized ones stand out, failed attempts in red', () => {
    const events = { read: 1200, deduplicated: 150, forwarded: 1000, summarized: 50, exportFailures: 2 };
    const html = renderLanding('1.0', status({ wafEvents: events }));
    expect(html).toContain('<dt>WAF events since start</dt><dd id="waf-events">1200 read, 150 repeats dropped, 1000 forwarded, ' +
      '<strong>50 summarized into summary records (beyond waf_events.max_rate)</strong>, <span class="error">2 failed delivery attempts (retried)</span></dd>');
    const quiet = renderLanding('1.0', status({ wafEvents: { ...events, summarized: 0, exportFailures: 0 } }));
    expect(quiet).toContain('1000 forwarded, 0 summarized into summary records (beyond waf_events.max_rate), 0 failed delivery attempts (retried)</dd>');
    expect(renderLanding('1.0', status())).not.toContain('WAF events since start');
  });

  it('shows the WAF delivery audit under the forwarder\'s outcome: events missing stand out, unreconciled buckets in red', () => {
    const row = (audit: NonNullable<DaemonStatus['jobs'][number]['audit']>): string => renderLanding('1.0', status({
      jobs: [{ name: 'waf-events', kind: 'forwarder', running: false, lastOutcome: 'success', audit }],
    }));
    expect(row({ bucketsShort: 0, missing: 0, recovered: 0, unreconciled: 0 })).toContain('<br><small class="audit">audit: no check yet</small>');
    expect(row({ bucketsShort: 2, missing: 14, recovered: 120, unreconciled: 3, checkedAt: T })).toContain(
      '<br><small class="audit">audit at 2026-11-26 12:00:00Z: <strong>2 buckets short (14 events missing)</strong>, 120 events recovered, ' +
        '<span class="error">3 buckets unreconciled</span></small>');
    expect(row({ bucketsShort: 0, missing: 0, recovered: 5, unreconciled: 0, checkedAt: T })).toContain(
      'audit at 2026-11-26 12:00:00Z: 0 buckets short (0 events missing), 5 events recovered, 0 buckets unreconciled</small>');
  });

  it('says when nothing happened', () => {
    const html = renderLanding('1.0', status({ contractMismatches: [{ check: 'totals', count: 0 }] }));
    expect(html).toContain('<dt>last reload</dt><dd>none since start</dd>');
    expect(html).toContain('<dt>contract mismatches</dt><dd>none</dd>');
    expect(renderLanding('1.0', status({ reload: { at: T, ok: true } }))).toContain('<span class="success">applied</span> at 2026-11-26 12:00:00Z');
  });

  it('reloads itself without a script and fits a phone\'s width', () => {
    const html = renderLanding('1.0', status());
    expect(html).toContain('<meta http-equiv="refresh" content="10">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).not.toContain('<script');
  });
});
