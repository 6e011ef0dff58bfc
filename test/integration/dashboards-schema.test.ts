// The Grafana dashboards in grafana/ against Grafana's published schema,
// @grafana/schema (the types Grafana itself generates from its CUE kinds).
//
// Each dashboard is written, as object literals, into a TypeScript source
// that is never saved: the whole document `satisfies Dashboard`, each panel
// `satisfies Panel` (or `RowPanel`), and each panel's `options` and
// `fieldConfig.defaults.custom` satisfy that panel plugin's `Options` and
// `FieldConfig`. The compiler's excess-property check on literals makes an
// unknown or dead key (an old table `footer` in options, a bar gauge's
// `minSizeHeight`) an error, as is a missing required key or a wrong value.
// JSON cannot spell an enum member, so enum types are compared by their values.
//
// And the `account` variable (issue 38): every dashboard has it, right after
// `job`, and every query selects `account=~"$account"` on each family a
// multi-account daemon labels with `account`, and on no daemon-wide one.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultDashboard } from '@grafana/schema';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GRAFANA_DIR = join(ROOT, 'grafana');
const FILES = readdirSync(GRAFANA_DIR).filter((f) => f.endsWith('.json')).sort();

/** Each panel type the dashboards use, with its plugin's generated type module (under dist/esm/raw/composable/). */
const PLUGINS: ReadonlyMap<string, { module: string; fieldConfig: boolean }> = new Map([
  ['timeseries', { module: 'timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen', fieldConfig: true }],
  ['stat', { module: 'stat/panelcfg/x/StatPanelCfg_types.gen', fieldConfig: false }],
  ['table', { module: 'table/panelcfg/x/TablePanelCfg_types.gen', fieldConfig: true }],
  ['piechart', { module: 'piechart/panelcfg/x/PieChartPanelCfg_types.gen', fieldConfig: true }],
  ['bargauge', { module: 'bargauge/panelcfg/x/BarGaugePanelCfg_types.gen', fieldConfig: false }],
  ['text', { module: 'text/panelcfg/x/TextPanelCfg_types.gen', fieldConfig: false }],
]);

interface PanelJson {
  readonly id?: number;
  readonly type?: string;
  readonly title?: string;
  readonly options?: unknown;
  readonly fieldConfig?: { readonly defaults?: { readonly custom?: unknown } };
  readonly panels?: readonly PanelJson[];
}

function allPanels(panels: readonly PanelJson[]): PanelJson[] {
  return panels.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);
}

/**
 * A TypeScript source asserting every part of the dashboards against the
 * schema. Each assertion is preceded by a `// where:` line naming it, so a
 * diagnostic can be reported by dashboard and panel.
 */
function checkSource(dashboards: ReadonlyMap<string, Record<string, unknown>>): string {
  const lines = [
    "import type { Dashboard, Panel, RowPanel } from '@grafana/schema';",
    ...[...PLUGINS].map(([type, p]) => `import type * as ${type} from '@grafana/schema/dist/esm/raw/composable/${p.module}';`),
    '/** A type as JSON can spell it: an enum member by its value. */',
    'type Json<T> = T extends string ? `${T}` : T extends number | boolean | null | undefined ? T : T extends readonly (infer U)[] ? Json<U>[] : T extends object ? { [K in keyof T]: Json<T[K]> } : T;',
  ];
  let n = 0;
  const check = (where: string, value: unknown, type: string): void => {
    lines.push(`// where: ${where}`, `export const c${n++} = ${JSON.stringify(value, null, 2)} satisfies Json<${type}>;`);
  };
  for (const [file, d] of dashboards) {
    // `__requires` is the import envelope Grafana's "export for sharing" adds (the plugins the import needs), not part of the model.
    const { __requires: _requires, ...model } = d as Record<string, unknown>;
    check(file, model, 'Dashboard');
    for (const p of allPanels((model.panels ?? []) as PanelJson[])) {
      const where = `${file} / panel ${p.id} "${p.title}" (${p.type})`;
      if (p.type === 'row') {
        check(where, p, 'RowPanel');
        continue;
      }
      check(where, p, 'Panel');
      const plugin = PLUGINS.get(p.type ?? '');
      if (!plugin) {
        lines.push(`// where: ${where}`, `export const c${n++}: never = 'no schema for panel type ${p.type}';`);
        continue;
      }
      check(`${where} options`, p.options ?? {}, `${p.type}.Options`);
      if (plugin.fieldConfig) check(`${where} fieldConfig.defaults.custom`, p.fieldConfig?.defaults?.custom ?? {}, `${p.type}.FieldConfig`);
    }
  }
  return lines.join('\n') + '\n';
}

/** Type errors in `source`, compiled as a file of this repository with its compiler options; each names its `// where:`. */
function typeErrors(source: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('tsconfig.json did not parse');
  // A name beside the tests, so that @grafana/schema resolves from this repository's node_modules; never written.
  const fileName = join(ROOT, 'test/integration/__dashboards-schema-check__.ts');
  const host = ts.createCompilerHost(config.options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, version, ...rest) =>
    name === fileName ? ts.createSourceFile(name, source, version) : getSourceFile.call(host, name, version, ...rest);
  host.fileExists = (name) => name === fileName || fileExists.call(host, name);
  host.readFile = (name) => (name === fileName ? source : readFile.call(host, name));
  const program = ts.createProgram([fileName], { ...config.options, noEmit: true, sourceMap: false }, host);
  const file = program.getSourceFile(fileName);
  if (!file) throw new Error('the generated source was not compiled');
  const sourceLines = source.split('\n');
  return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((diag) => {
    const line = diag.start === undefined ? 0 : file.getLineAndCharacterOfPosition(diag.start).line;
    let where = 'imports';
    for (let i = line; i >= 0; i--) {
      const m = /^\/\/ where: (.*)$/.exec(sourceLines[i] ?? '');
      if (m) {
        where = m[1] ?? '';
        break;
      }
    }
    return `${where}: line ${line + 1} ${(sourceLines[line] ?? '').trim()}: ${ts.flattenDiagnosticMessageText(diag.messageText, '\n')}`;
  });
}

function load(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(GRAFANA_DIR, file), 'utf8')) as Record<string, unknown>;
}

describe("the dashboards against Grafana's published schema (@grafana/schema)", () => {
  it.each(FILES)('%s: the schema version @grafana/schema writes', (file) => {
    expect(load(file).schemaVersion).toBe(defaultDashboard.schemaVersion);
  });

  it('every dashboard, panel, panel options and custom field config type-checks, with no unknown key', () => {
    const dashboards = new Map(FILES.map((f) => [f, load(f)]));
    // The check must be able to fail: the same source with a dead key put back into one bar gauge's options.
    const overview = load('edge-overview.json');
    const gauge = allPanels(overview.panels as PanelJson[]).find((p) => p.type === 'bargauge');
    if (!gauge) throw new Error('the overview has no bar gauge');
    (gauge.options as Record<string, unknown>).minSizeHeight = 16;
    const errors = typeErrors(checkSource(new Map([...dashboards, ['mutated overview', overview]])));
    const [real, mutated] = [errors.filter((e) => !e.startsWith('mutated')), errors.filter((e) => e.startsWith('mutated'))];
    expect(real, real.join('\n')).toEqual([]);
    expect(mutated).toEqual([expect.stringMatching(/^mutated overview \/ panel \d+ .*\(bargauge\) options: .*'"minSizeHeight"' does not exist/)]);
  }, 60_000);
});

// ------------------------------------------------------------ the account variable

/**
 * Which families carry `account` in a daemon serving several accounts
 * (issue 38), written out here rather than read from the code under test:
 * the daemon-wide self-metrics and the series of Prometheus and the process
 * never do; every data family (edge_ but not edge_exporter_) and the
 * per-account self-metrics below always do. A self-metric in neither list
 * fails the test until it is placed in one.
 */
const DAEMON_WIDE: readonly RegExp[] = [
  /^edge_exporter_remote_write_/, /^edge_exporter_otlp_metrics_/, /^edge_exporter_config_/, /^edge_exporter_build_info$/,
  /^process_/, /^nodejs_/, /^scrape_/, /^up$/,
];
const PER_ACCOUNT_SELF: readonly RegExp[] = [
  /^edge_exporter_collector_/, /^edge_exporter_target_data_age_seconds$/, /^edge_exporter_upstream_/, /^edge_exporter_series$/,
  /^edge_exporter_series_dropped_total$/, /^edge_exporter_samples_rejected_total$/, /^edge_exporter_waf_/,
  /^edge_exporter_contract_mismatches_total$/, /^edge_exporter_audit_buckets_total$/, /^edge_exporter_suggested_delay_seconds$/,
  /^edge_exporter_points_rejected_total$/, /^edge_exporter_state_resets_total$/, /^edge_exporter_state_save_failures_total$/,
];

function accountScope(metric: string): 'account' | 'daemon' | undefined {
  const family = metric.replace(/_(bucket|sum|count)$/, '');
  const is = (list: readonly RegExp[]): boolean => list.some((re) => re.test(metric) || re.test(family));
  if (is(DAEMON_WIDE)) return 'daemon';
  if (is(PER_ACCOUNT_SELF) || (metric.startsWith('edge_') && !metric.startsWith('edge_exporter_'))) return 'account';
  return undefined;
}

const ACCOUNT_MATCHER = 'account=~"$account"';
/** Each metric selector in a query: the name, then its `{...}` if any (not a function call). */
const SELECTOR = /\b((?:edge|process|nodejs|scrape)_[a-zA-Z0-9_]+|up)\b(?!\s*\()(\{[^}]*\})?/g;

/** Problems of one query: a per-account family without the account matcher, a daemon-wide one with an account matcher. */
function accountProblems(expr: string): string[] {
  const problems: string[] = [];
  for (const [, name = '', selector = ''] of expr.matchAll(SELECTOR)) {
    const scope = accountScope(name);
    if (scope === undefined) problems.push(`${name}: neither per-account nor daemon-wide (add it to a list above)`);
    else if (scope === 'account' && !selector.includes(ACCOUNT_MATCHER)) problems.push(`${name} without ${ACCOUNT_MATCHER}`);
    else if (scope === 'daemon' && /\baccount\s*(=|!=|=~|!~)/.test(selector)) problems.push(`${name} is daemon-wide: it has no account label to select`);
  }
  return problems;
}

interface TargetJson {
  readonly refId?: string;
  readonly expr?: string;
}
interface VariableJson {
  readonly name: string;
  readonly type: string;
  readonly label?: string;
  readonly multi?: boolean;
  readonly includeAll?: boolean;
  readonly allValue?: string | null;
  readonly current?: { readonly text?: unknown; readonly value?: unknown };
  readonly query?: string | { readonly query?: string };
}

function variableQuery(v: VariableJson): string {
  return typeof v.query === 'string' ? v.query : (v.query?.query ?? '');
}

/** Every problem of a dashboard with its account variable and the account matchers of its queries. */
function accountVariableProblems(d: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const variables = ((d.templating as { list?: VariableJson[] } | undefined)?.list ?? []);
  const names = variables.map((v) => v.name);
  const account = variables.find((v) => v.name === 'account');
  if (!account) return ['no account variable'];
  if (names.indexOf('account') !== names.indexOf('job') + 1) problems.push(`account is not right after job: ${names.join(', ')}`);
  const shape = { type: account.type, label: account.label, multi: account.multi, includeAll: account.includeAll, allValue: account.allValue, current: account.current };
  const want = { type: 'query', label: 'Account', multi: true, includeAll: true, allValue: '.*', current: { selected: true, text: ['All'], value: ['$__all'] } };
  if (JSON.stringify(shape) !== JSON.stringify(want)) problems.push(`account variable ${JSON.stringify(shape)}, expected ${JSON.stringify(want)}`);
  const query = /^label_values\((edge_[a-z0-9_]+)\{job=~?"\$job"\}, account\)$/.exec(variableQuery(account));
  if (!query) problems.push(`account variable query ${variableQuery(account)} is not label_values(<family>{job...}, account)`);
  else if (accountScope(query[1] ?? '') !== 'account') problems.push(`account variable reads ${query[1]}, which has no account label`);
  for (const v of variables) {
    if (v.type !== 'query' || ['job', 'account'].includes(v.name)) continue;
    problems.push(...accountProblems(variableQuery(v)).map((p) => `variable ${v.name}: ${p}`));
  }
  for (const p of allPanels((d.panels ?? []) as PanelJson[])) {
    for (const t of ((p as { targets?: TargetJson[] }).targets ?? [])) {
      problems.push(...accountProblems(t.expr ?? '').map((problem) => `panel ${p.id} "${p.title}" ${t.refId}: ${problem}`));
    }
  }
  return problems;
}

describe('the account variable', () => {
  it.each(FILES)('%s: has it after job (All = .*), and selects it on every per-account family, on no daemon-wide one', (file) => {
    expect(accountVariableProblems(load(file))).toEqual([]);
  });

  it('the check can fail: a selector without the matcher, a daemon-wide one with it, a family in neither list', () => {
    const health = load('edge-exporter-health.json');
    const targets = allPanels(health.panels as PanelJson[]).flatMap((p) => (p as { targets?: { expr?: string }[] }).targets ?? []);
    const collector = targets.find((t) => t.expr?.includes('edge_exporter_collector_up{'));
    const otlp = targets.find((t) => t.expr?.includes('edge_exporter_otlp_metrics_lag_seconds{'));
    if (!collector?.expr || !otlp?.expr) throw new Error('the health dashboard has no collector_up or OTLP metrics lag query');
    collector.expr = collector.expr.replace(`, ${ACCOUNT_MATCHER}`, '');
    otlp.expr = otlp.expr.replace('{job=~"$job"', `{job=~"$job", ${ACCOUNT_MATCHER}`);
    otlp.expr += ' or edge_exporter_new_thing{job=~"$job"}';
    expect(accountVariableProblems(health)).toEqual([
      expect.stringMatching(/"Collector up" A: edge_exporter_collector_up without account=~"\$account"$/),
      expect.stringMatching(/"OTLP metrics lag" A: edge_exporter_otlp_metrics_lag_seconds is daemon-wide/),
      expect.stringMatching(/"OTLP metrics lag" A: edge_exporter_new_thing: neither per-account nor daemon-wide/),
    ]);
  });
});
