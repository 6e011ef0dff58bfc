// The landing page at `/`: the daemon's state and readiness (what /readyz
// answers), notices (warnings, outbound connection failures), each
// collector's last run, outcome and error, and a link to /metrics. Everything shown is escaped: error messages can carry
// upstream text.
import type { DaemonStatus } from './types.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function when(ms: number | undefined): string {
  return ms === undefined ? '—' : new Date(ms).toISOString();
}

export function renderLanding(version: string, status: DaemonStatus): string {
  const { collectors, notices } = status;
  const rows = collectors.map((c) => {
    const outcome = c.running ? 'running' : (c.lastOutcome ?? 'not run yet');
    const error = c.lastError ? `${c.lastError.code ? `${c.lastError.code}: ` : ''}${c.lastError.message}` : '';
    return `<tr><td>${escapeHtml(c.name)}</td><td>${when(c.lastRunAt)}</td><td>${when(c.lastSuccessAt)}</td>`
      + `<td class="${escapeHtml(c.lastOutcome ?? 'none')}">${escapeHtml(outcome)}</td><td>${escapeHtml(error)}</td></tr>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>edge-exporter</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}.error{color:#b00}.success{color:#070}</style>
</head><body>
<h1>edge-exporter ${escapeHtml(version)}</h1>
<p><a href="/metrics">/metrics</a> · <a href="/healthz">/healthz</a> · <a href="/readyz">/readyz</a></p>
<p>state: ${escapeHtml(status.state)}, ${status.ready ? 'ready' : 'not ready'}</p>
${notices.map((n) => `<p class="error">${escapeHtml(n)}</p>\n`).join('')}<table><thead><tr><th>collector</th><th>last run</th><th>last success</th><th>outcome</th><th>last error</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
</body></html>
`;
}
