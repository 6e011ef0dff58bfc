// The report as an operator reads it (a block per check, aligned, and one
// summary line) or as a program does (one JSON document). Pure.
import type { CheckResult, DoctorReport } from './types.js';

const ID_WIDTH = 18;
const VERDICT_WIDTH = 11;
const LABEL_WIDTH = 10;

/** Where a check's `ok` has a word of its own (the WAF audit's: the counts and the records are consistent). */
const OK_WORD: Partial<Record<CheckResult['id'], string>> = { waf_audit: 'consistent' };

function block(check: CheckResult): string[] {
  const verdict = check.verdict === 'ok' ? (OK_WORD[check.id] ?? 'ok') : check.verdict;
  const head = `${check.id.padEnd(ID_WIDTH)}${verdict.padEnd(VERDICT_WIDTH)}`;
  const indent = ' '.repeat(ID_WIDTH + VERDICT_WIDTH);
  const rows: Array<[string, string]> = [
    ['assumed', check.assumed],
    ...check.observed.map((o, i): [string, string] => [i === 0 ? 'observed' : '', o]),
    ...check.set.map((s, i): [string, string] => [i === 0 ? 'set' : '', `${s.key}: ${s.value}`]),
    // A note explains a finding; on an `ok` it is noise in the table (the JSON keeps it).
    ...(check.note === undefined || check.verdict === 'ok' ? [] : [['note', check.note] as [string, string]]),
  ];
  return rows.map(([label, text], i) => `${i === 0 ? head : indent}${label.padEnd(LABEL_WIDTH)}${text}`);
}

function summaryLine(report: DoctorReport): string {
  const s = report.summary;
  const refused = s.refused ? '; the upstream refused us or did not answer' : '';
  return `doctor: ${s.ok} ok, ${s.differs} differ, ${s.unknown} unknown${refused}; ${s.requests} request(s) in ${(s.durationMs / 1000).toFixed(1)} s; exit ${s.exitCode}`;
}

export function renderText(report: DoctorReport): string {
  const blocks = report.checks.map((c) => block(c).join('\n'));
  return `${blocks.join('\n\n')}\n\n${summaryLine(report)}\n`;
}

