// The status page at `/`: the daemon's state and readiness (what /readyz
// answers), the upstream (credentials masked by the daemon), the last
// reload, notices, one row per job the engine runs (collectors, the WAF event
// forwarder, the remote-write sender) with its last run, outcome, error
// (code, address, hint) and lag, and the contract mismatches by check.
// It reloads itself (a meta refresh: no script needed) and stacks its table
// into cards on a narrow screen. Everything shown is escaped: error messages
// can carry upstream text.
import type { AccountStatus, AuditStatus, DaemonStatus, JobStatus, WafEventsStatus } from './types.js';

/** Seconds between the page's own reloads. */
const REFRESH_SECONDS = 10;

const STYLE = `body{font-family:system-ui,sans-serif;margin:1em;line-height:1.4}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top}
td{overflow-wrap:anywhere}td.n{white-space:nowrap;overflow-wrap:normal}td.t{overflow-wrap:normal}td.t span{white-space:nowrap}td:last-child{min-width:14em}.error{color:#b00}.success{color:#070}.running{color:#555}code{font-size:.95em}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em}dd{margin:0;overflow-wrap:anywhere}
@media (max-width:700px){thead{display:none}table,tbody,tr,td{display:block;width:auto}tr{border:1px solid #ccc;margin:0 0 .8em;padding:.3em}
td,td.n,td:last-child{border:0;padding:.15em .3em;white-space:normal;min-width:0}td::before{content:attr(data-label) ": ";font-weight:bold}td:empty{display:none}}`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** RFC 3339 to the second: runs are minutes apart. */
function stamp(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, 'Z');
}

/** A table cell's time, wrapped only between date and time in a narrow column. */
function when(ms: number | undefined): string {
  return ms === undefined ? '—' : stamp(ms).split(' ').map((part) => `<span>${part}</span>`).join(' ');
}

/** `754` -> `754 s (12 min 34 s)`: exact for a comparison with the self-metric, readable at a glance. */
function duration(seconds: number | undefined): string {
  if (seconds === undefined) return '—';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const parts = [...(h > 0 ? [`${h} h`] : []), ...(h > 0 || m > 0 ? [`${m} min`] : []), `${s % 60} s`];
  return parts.length === 1 ? `${s} s` : `<span>${s} s</span> <span>(${parts.join(' ')})</span>`;
}

const LAG_OF: Readonly<Record<JobStatus['kind'], string>> = { collector: 'data lag', forwarder: 'checkpoint lag', sender: 'newest sample pushed' };

function outcomeOf(job: JobStatus): { readonly cls: string; readonly text: string } {
  if (job.failing) return { cls: 'error', text: `error, retrying: ${job.failing.attempts} attempts failed since ${stamp(job.failing.since)}` };
  if (job.running) return { cls: 'running', text: 'running' };
  if (job.lastOutcome === undefined) return { cls: 'none', text: 'not run yet' };
  return { cls: job.lastOutcome, text: job.lastOutcome };
}

function errorCell(job: JobStatus): string {
  const e = job.lastError;
  if (e === undefined) return '';
  const lines = [`<code>${escapeHtml(e.code)}</code> ${escapeHtml(e.message)}`];
  if (e.address !== undefined) lines.push(`address: <code>${escapeHtml(e.address)}</code>`);
  if (e.hint !== undefined) lines.push(`hint: ${escapeHtml(e.hint)}`);
  return lines.join('<br>');
}

/** `prefix`: the account's `<name>-` in its section, so two accounts' rows of one job have ids of their own. */
function row(job: JobStatus, prefix = ''): string {
  const outcome = outcomeOf(job);
  // [label, html, class: n on one line on a wide screen, t wrapped only between its spans]
  const cells: readonly (readonly [string, string, string])[] = [
    ['job', `${escapeHtml(job.name)} <small>(${job.kind})</small>`, 'n'],
    ['last run', when(job.lastRunAt), 't'],
    ['last success', when(job.lastSuccessAt), 't'],
    ['outcome', `<span class="${outcome.cls}">${escapeHtml(outcome.text)}</span>${job.audit ? `<br>${auditText(job.audit)}` : ''}`, ''],
    [LAG_OF[job.kind], duration(job.lagSeconds), 't'],
    ['last error', errorCell(job), ''],
  ];
  const td = ([label, html, cls]: readonly [string, string, string]): string => `<td${cls === '' ? '' : ` class="${cls}"`} data-label="${escapeHtml(label)}">${html}</td>`;
  return `<tr id="job-${escapeHtml(prefix + job.name)}">${cells.map(td).join('')}</tr>`;
}

/** The WAF delivery audit under the forwarder's outcome: what is missing now stands out, what is missing for good in red. */
function auditText(audit: AuditStatus): string {
  if (audit.checkedAt === undefined) return '<small class="audit">audit: no check yet</small>';
  const short = `${audit.bucketsShort} buckets short (${audit.missing} events missing)`;
  const unreconciled = `${audit.unreconciled} buckets unreconciled`;
  return `<small class="audit">audit at ${stamp(audit.checkedAt)}: ${audit.missing > 0 ? `<strong>${short}</strong>` : short}, ` +
    `${audit.recovered} events recovered, ${audit.unreconciled > 0 ? `<span class="error">${unreconciled}</span>` : unreconciled}</small>`;
}

function reloadText(status: DaemonStatus): string {
  const r = status.reload;
  if (r === undefined) return 'none since start';
  if (r.ok) return `<span class="success">applied</span> at ${stamp(r.at)}`;
  return `<span class="error">refused</span> at ${stamp(r.at)}; the previous configuration still runs: ${escapeHtml(r.message ?? '')}`;
}

function mismatchText(status: Pick<DaemonStatus, 'contractMismatches'>): string {
  const found = status.contractMismatches.filter((m) => m.count > 0);
  if (found.length === 0) return 'none';
  return found.map((m) => `<span class="error">${escapeHtml(m.check)}: ${m.count}</span>`).join(', ');
}

/** What became of the deny events read, each count the self-metric's: summarized ones stand out, failed attempts in red. */
function wafEventsText(events: WafEventsStatus): string {
  const summarized = `${events.summarized} summarized into summary records (beyond waf_events.max_rate)`;
  const failed = `${events.exportFailures} failed delivery attempts (retried)`;
  return [
    `${events.read} read`,
    `${events.deduplicated} repeats dropped`,
    `${events.forwarded} forwarded`,
    events.summarized > 0 ? `<strong>${summarized}</strong>` : summarized,
    events.exportFailures > 0 ? `<span class="error">${failed}</span>` : failed,
  ].join(', ');
}

/**
 * What one account reads and forwards (the whole page's, without named
 * accounts): its terms, notices and jobs. `account`: its name, which its
 * elements' ids carry (`waf-events-<name>`, `job-<name>-<job>`), so two
 * accounts' never clash.
 */
function body(part: Pick<AccountStatus, 'upstream' | 'contractMismatches' | 'wafEvents' | 'notices' | 'jobs'>, head: string, account?: string): string {
  const suffix = account === undefined ? '' : `-${account}`;
  return `<dl>
${head}<dt>upstream</dt><dd>${part.upstream === undefined ? '—' : `<code>${escapeHtml(part.upstream)}</code>`}</dd>
<dt>contract mismatches</dt><dd>${mismatchText(part)}</dd>
${part.wafEvents === undefined ? '' : `<dt>WAF events since start</dt><dd id="waf-events${escapeHtml(suffix)}">${wafEventsText(part.wafEvents)}</dd>\n`}</dl>
${notices(part.notices)}${table(part.jobs, account === undefined ? '' : `${account}-`)}`;
}

function notices(lines: readonly string[]): string {
  return lines.map((n) => `<p class="error">${escapeHtml(n)}</p>\n`).join('');
}

function table(jobs: readonly JobStatus[], prefix = ''): string {
  return `<table><thead><tr><th>job</th><th>last run</th><th>last success</th><th>outcome</th><th>lag</th><th>last error</th></tr></thead>
<tbody>
${jobs.map((job) => row(job, prefix)).join('\n')}
</tbody></table>
`;
}

/** Named accounts: the daemon's terms and the shared senders, then a section per account. */
function accountsBody(status: DaemonStatus, accounts: readonly AccountStatus[], head: string): string {
  const shared = status.jobs.length === 0 ? '' : `<h2>shared push pipes</h2>\n${table(status.jobs)}`;
  const sections = accounts.map((a) => `<section id="account-${escapeHtml(a.name)}">
<h2>account ${escapeHtml(a.name)}</h2>
${body(a, '', a.name)}</section>
`).join('');
  return `<dl>
${head}<dt>accounts</dt><dd>${accounts.map((a) => `<a href="#account-${escapeHtml(a.name)}">${escapeHtml(a.name)}</a>`).join(', ')}</dd>
</dl>
${notices(status.notices)}${shared}${sections}`;
}

export function renderLanding(version: string, status: DaemonStatus): string {
  const head = `<dt>state</dt><dd>${escapeHtml(status.state)}, ${status.ready ? 'ready' : 'not ready'}</dd>
<dt>last reload</dt><dd>${reloadText(status)}</dd>
`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${REFRESH_SECONDS}"><title>edge-exporter</title>
<style>${STYLE}</style>
</head><body>
<h1>edge-exporter ${escapeHtml(version)}</h1>
<p><a href="/metrics">/metrics</a> · <a href="/healthz">/healthz</a> · <a href="/readyz">/readyz</a></p>
${status.accounts === undefined ? body(status, head) : accountsBody(status, status.accounts, head)}<p><small>Lag: a collector's data lag (edge_exporter_collector_data_lag_seconds), the WAF forwarder's checkpoint lag
(edge_exporter_waf_checkpoint_lag_seconds), the age of the newest sample remote-write pushed (edge_exporter_remote_write_lag_seconds)
or point the OTLP metrics push did (edge_exporter_otlp_metrics_lag_seconds), as a scrape now would read them. This page reloads every ${REFRESH_SECONDS} s.</small></p>
</body></html>
`;
}
