// Reads what the rule tests cross-check: the Prometheus rule files
// (prometheus/*.yml), their promtool unit tests (prometheus/tests/*.yml) and
// the metric reference (docs/metrics.md), each parsed into a checked shape so
// a misspelt key fails here rather than being ignored by promtool.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const RULES_DIR = join(ROOT, 'prometheus');
export const TESTS_DIR = join(RULES_DIR, 'tests');

// Label values may be written unquoted (an order id of digits); promtool reads them as strings.
const labelMap = z.record(z.string(), z.coerce.string());

const alertingRule = z.strictObject({
  alert: z.string(),
  expr: z.string(),
  for: z.string().optional(),
  labels: labelMap.default({}),
  annotations: labelMap.default({}),
});
const recordingRule = z.strictObject({ record: z.string(), expr: z.string(), labels: labelMap.default({}) });
const ruleFile = z.strictObject({
  groups: z.array(z.strictObject({ name: z.string(), interval: z.string().optional(), rules: z.array(z.union([alertingRule, recordingRule])) })),
});

const alertTest = z.strictObject({
  eval_time: z.string(),
  alertname: z.string(),
  exp_alerts: z.array(z.strictObject({ exp_labels: labelMap.optional(), exp_annotations: labelMap.optional() })).nullish(),
});
const exprTest = z.strictObject({
  expr: z.string(),
  eval_time: z.string(),
  exp_samples: z.array(z.strictObject({ labels: z.string(), value: z.number() })).nullish(),
});
const testFile = z.strictObject({
  rule_files: z.array(z.string()),
  evaluation_interval: z.string().optional(),
  group_eval_order: z.array(z.string()).optional(),
  tests: z.array(z.strictObject({
    name: z.string().optional(),
    interval: z.string().optional(),
    external_labels: labelMap.optional(),
    input_series: z.array(z.strictObject({ series: z.string(), values: z.string() })).optional(),
    alert_rule_test: z.array(alertTest).optional(),
    promql_expr_test: z.array(exprTest).optional(),
  })),
});

type AlertingRule = z.infer<typeof alertingRule> & { readonly file: string };
type RecordingRule = z.infer<typeof recordingRule> & { readonly file: string };
type AlertTest = z.infer<typeof alertTest> & { readonly file: string };
type ExprTest = z.infer<typeof exprTest> & { readonly file: string };

/** The .yml files directly in `dir`, as absolute paths, sorted. */
export function ymlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.yml'))
    .map((e) => join(dir, e.name))
    .sort();
}

function load<T>(file: string, schema: z.ZodType<T>): T {
  const result = schema.safeParse(parse(readFileSync(file, 'utf8')));
  if (!result.success) throw new Error(`${file}: ${z.prettifyError(result.error)}`);
  return result.data;
}

interface RuleGroup {
  readonly name: string;
  /** Whether the group holds alerts (they read what the recording groups record). */
  readonly alerting: boolean;
}

interface Rules {
  readonly alerts: AlertingRule[];
  readonly records: RecordingRule[];
  readonly groups: RuleGroup[];
}

export function loadRules(files: readonly string[] = ymlFiles(RULES_DIR)): Rules {
  const rules: Rules = { alerts: [], records: [], groups: [] };
  for (const file of files) {
    for (const group of load(file, ruleFile).groups) {
      rules.groups.push({ name: group.name, alerting: group.rules.some((r) => 'alert' in r) });
      for (const rule of group.rules) {
        if ('alert' in rule) rules.alerts.push({ ...rule, file });
        else rules.records.push({ ...rule, file });
      }
    }
  }
  return rules;
}

interface UnitTestFile {
  readonly file: string;
  /** Absolute paths of the rule files it loads. */
  readonly ruleFiles: string[];
  readonly groupEvalOrder: string[];
  readonly alertTests: AlertTest[];
  readonly exprTests: ExprTest[];
}

export function loadUnitTests(files: readonly string[] = ymlFiles(TESTS_DIR)): UnitTestFile[] {
  return files.map((file) => {
    const parsed = load(file, testFile);
    return {
      file,
      ruleFiles: parsed.rule_files.map((r) => join(dirname(file), r)),
      groupEvalOrder: parsed.group_eval_order ?? [],
      alertTests: parsed.tests.flatMap((g) => (g.alert_rule_test ?? []).map((t) => ({ ...t, file }))),
      exprTests: parsed.tests.flatMap((g) => (g.promql_expr_test ?? []).map((t) => ({ ...t, file }))),
    };
  });
}

interface MetricDoc {
  readonly type: string;
  readonly labels: readonly string[];
}

/** Every family in docs/metrics.md: `| \`name\` | type | unit | labels | ...`. */
export function documentedMetrics(file = join(ROOT, 'docs', 'metrics.md')): Map<string, MetricDoc> {
  const metrics = new Map<string, MetricDoc>();
  for (const m of readFileSync(file, 'utf8').matchAll(/^\| `([a-z_][a-z0-9_]*)` \| (\w+) \| [^|]* \| ([^|]*) \|/gm)) {
    const [, name = '', type = '', labels = ''] = m;
    metrics.set(name, { type, labels: [...labels.matchAll(/`([a-z_][a-z0-9_]*)`/g)].map((l) => l[1] ?? '') });
  }
  return metrics;
}

/** Raw metric names starting `edge_` (not the metric part of a recorded `level:metric:ops` name). */
export function edgeMetricNames(text: string): string[] {
  return [...new Set([...text.matchAll(/(?<![\w:])edge_[a-z0-9_]+(?![\w:])/g)].map((m) => m[0]))];
}

/** Recorded names (`level:metric:operations`) used in a PromQL expression. */
export function recordedNames(expr: string): string[] {
  return [...new Set([...expr.matchAll(/(?<![\w:])[a-zA-Z_]\w*:[\w:]*/g)].map((m) => m[0]))];
}

interface Matcher {
  readonly metric: string;
  readonly label: string;
  readonly op: string;
  readonly value: string;
}

/** The label matchers of each `edge_...{...}` selector in `text` (a YAML-decoded expression or template). */
export function edgeMatchers(text: string): Matcher[] {
  const matchers: Matcher[] = [];
  for (const selector of text.matchAll(/(?<![\w:])(edge_[a-z0-9_]+)\{([^}]*)\}/g)) {
    const [, metric = '', body = ''] = selector;
    for (const m of body.matchAll(/([a-zA-Z_]\w*)\s*(=~|!~|!=|=)\s*(?:"([^"]*)"|%q)/g)) {
      matchers.push({ metric, label: m[1] ?? '', op: m[2] ?? '', value: m[3] ?? '%q' });
    }
  }
  return matchers;
}

/** The settings rule whose `url` label is the docs base every runbook_url starts with. */
export const RUNBOOK_BASE_RECORD = 'edge_exporter:runbook_base_url:configured';

/** An alert's runbook_url template: the docs base from the settings, then its docs/alerts.md anchor. */
export function runbookTemplate(alert: string): string {
  return `{{ with query "${RUNBOOK_BASE_RECORD}" }}{{ . | first | label "url" }}{{ end }}/${runbookAnchor(alert)}`;
}

/** alerts.md anchor of an alert (GitHub lowercases a heading and drops what is not a word character). */
export function runbookAnchor(alert: string): string {
  return `alerts.md#${alert.toLowerCase()}`;
}
