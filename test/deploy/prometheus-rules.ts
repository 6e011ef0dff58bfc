// deploy/kubernetes/prometheusrule.yaml is generated from the repository's
// rule files, prometheus/*.yml (the one source of the rules, promtool-tested
// there): one PrometheusRule per file, its spec.groups the file's groups.
// kubernetes.test.ts compares the manifest with this rendering; `vitest -u`
// writes it.
import { basename } from 'node:path';
import { Document } from 'yaml';
import { fromRoot, repoPath, walk, yamlDocument } from './files.js';
import { ruleGroups } from './shapes.js';

const RULE_FILES_DIR = fromRoot('prometheus');

/** The rule files Prometheus loads: *.yml directly in prometheus/ (tests/ holds promtool tests). */
export function ruleFiles(): string[] {
  return walk(RULE_FILES_DIR).filter((f) => f.endsWith('.yml') && !f.slice(RULE_FILES_DIR.length + 1).includes('/'));
}

/** Annotation naming the file an object was generated from. */
export const SOURCE_ANNOTATION = 'edge-exporter/rules-source';

const HEADER = `# GENERATED from prometheus/*.yml, one PrometheusRule per rule file: do not
# edit here. The comments explaining each rule, its threshold and its runbook
# are in those files. After changing them, regenerate this file with
#   npx vitest run test/deploy -u
# (test/deploy fails while it differs from the rule files).
#
# The settings file holds per-deployment constants (collector intervals,
# bandwidth commits, the docs base of every runbook_url): edit
# prometheus/edge-exporter.settings.yml, or patch the edge-exporter-settings
# object with kustomize.
#
# kube-prometheus-stack loads only PrometheusRules labelled
# \`release: <its release name>\` unless ruleSelectorNilUsesHelmValues is false:
# add that label in kustomization.yaml (labels:) if yours needs it.
`;

export function renderPrometheusRules(namespace: string): string {
  const docs = ruleFiles().map((file) => {
    const groups = ruleGroups.parse((yamlDocument(file) as { groups?: unknown }).groups);
    const manifest = {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PrometheusRule',
      metadata: {
        name: basename(file, '.yml').replace(/\./g, '-'),
        namespace,
        labels: { 'app.kubernetes.io/name': 'edge-exporter' },
        annotations: { [SOURCE_ANNOTATION]: repoPath(file) },
      },
      spec: { groups },
    };
    return new Document(manifest).toString({ lineWidth: 0 });
  });
  return `${HEADER}${docs.map((d) => `---\n${d}`).join('')}`;
}
