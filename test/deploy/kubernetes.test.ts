// deploy/kubernetes: kustomization.yaml lists exactly the manifests beside it;
// the objects refer to each other consistently (Secret keys, ConfigMap key and
// mount, probe and Service ports, selectors, the state volume); the ConfigMap's
// config.yaml loads with the exporter's loader given the environment the
// StatefulSet builds from the Secret; the pod meets the "restricted" Pod
// Security Standard; and the PrometheusRule carries the repository's rules.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadConfig } from '../../src/config/index.js';
import { parseHostPort } from '../../src/config/fields.js';
import { fromRoot, isYaml, promtool, readText, repoPath, walk, yamlDocument, yamlDocuments } from './files.js';
import { renderPrometheusRules, ruleFiles, SOURCE_ANNOTATION } from './prometheus-rules.js';
import {
  configMap,
  k8sObject,
  kustomization,
  prometheusRule,
  secret,
  service,
  serviceMonitor,
  statefulSet,
  type K8sObject,
} from './shapes.js';

const DIR = fromRoot('deploy/kubernetes');
const kustomize = kustomization.parse(yamlDocument(join(DIR, 'kustomization.yaml')));
const objects: K8sObject[] = kustomize.resources.flatMap((file) => yamlDocuments(join(DIR, file)).map((doc) => k8sObject.parse(doc)));

function only(kind: string): unknown {
  const found = objects.filter((o) => o.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0];
}

const sts = statefulSet.parse(only('StatefulSet'));
const svc = service.parse(only('Service'));
const cm = configMap.parse(only('ConfigMap'));
const sec = secret.parse(only('Secret'));
const monitor = serviceMonitor.parse(only('ServiceMonitor'));
const rules = objects.filter((o) => o.kind === 'PrometheusRule').map((o) => prometheusRule.parse(o));
const pod = sts.spec.template.spec;
const [ctr] = pod.containers as [(typeof pod.containers)[number]]; // the schema requires exactly one

const configArg = ctr.args[ctr.args.indexOf('--config') + 1] ?? '';

/** The environment the container gets: secretKeyRef values from the Secret (optional keys may be absent). */
function containerEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const v of ctr.env) {
    const ref = v.valueFrom?.secretKeyRef;
    const value = ref ? sec.stringData[ref.key] : v.value;
    if (value !== undefined) env[v.name] = value;
  }
  return env;
}

const configText = cm.data[basename(configArg)] ?? '';
const config = loadConfig({ file: `${cm.metadata.name}/${basename(configArg)}`, text: configText, env: containerEnv() });

describe('kustomization.yaml', () => {
  it('lists every manifest in the folder, and only those', () => {
    const files = walk(DIR).filter(isYaml).map((f) => f.slice(DIR.length + 1)).filter((f) => f !== 'kustomization.yaml');
    expect([...kustomize.resources].sort()).toEqual(files.sort());
  });

  it('puts everything in the namespace it creates, and names the image it rewrites', () => {
    expect(only('Namespace')).toMatchObject({ metadata: { name: kustomize.namespace } });
    for (const o of objects.filter((x) => x.kind !== 'Namespace')) expect(o.metadata.namespace, `${o.kind}`).toBe(kustomize.namespace);
    expect(kustomize.images?.map((i) => i.name)).toEqual([ctr.image.split(':')[0]]);
  });

  it('labels every object app.kubernetes.io/name=edge-exporter', () => {
    for (const o of objects) expect(o.metadata.labels?.['app.kubernetes.io/name'], o.kind).toBe('edge-exporter');
  });
});

describe('ConfigMap and Secret', () => {
  it('config.yaml loads with the exporter loader, the account coming from the Secret through the environment', () => {
    expect(config.upstream.api_url).toBe(sec.stringData['api-url']);
    expect(config.upstream.token).toBe(sec.stringData.token);
    expect(config.simulator.enabled).toBe(false);
  });

  it('every ${VAR} in config.yaml is set on the container', () => {
    const referenced = [...configText.matchAll(/\$\{(\w+)(:-[^}]*)?\}/g)].filter((m) => m[2] === undefined).map((m) => m[1]);
    expect(referenced.length).toBeGreaterThan(0);
    for (const name of referenced) expect(ctr.env.map((v) => v.name)).toContain(name);
  });

  it('every required Secret key the container reads exists, and the token is a placeholder, not a credential', () => {
    for (const v of ctr.env) {
      const ref = v.valueFrom?.secretKeyRef;
      if (!ref) continue;
      expect(ref.name).toBe(sec.metadata.name);
      if (ref.optional !== true) expect(Object.keys(sec.stringData)).toContain(ref.key);
    }
    expect(sec.stringData.token).toMatch(/^REPLACE_/);
    expect(new URL(sec.stringData['api-url'] ?? '').hostname).toMatch(/\.invalid$/);
  });

  it('the config is mounted read-only where --config looks for it', () => {
    const volume = pod.volumes.find((v) => v.configMap?.name === cm.metadata.name);
    const mount = ctr.volumeMounts.find((m) => m.name === volume?.name);
    expect(mount).toMatchObject({ mountPath: dirname(configArg), readOnly: true });
    expect(ctr.args).toEqual(['run', '--config', '/etc/edge-exporter/config.yaml']);
  });
});

describe('StatefulSet and Service', () => {
  const port = ctr.ports.find((p) => p.name === 'metrics');

  it('runs one replica governed by the headless Service, which selects its pods', () => {
    expect(sts.spec.replicas).toBe(1);
    expect(sts.spec.serviceName).toBe(svc.metadata.name);
    expect(svc.spec.clusterIP).toBe('None');
    expect(sts.spec.template.metadata.labels).toMatchObject(sts.spec.selector.matchLabels);
    expect(sts.spec.template.metadata.labels).toMatchObject(svc.spec.selector);
  });

  it('serves on the port config.yaml listens on, and the Service exposes it as "metrics"', () => {
    expect(port?.containerPort).toBe(parseHostPort(config.server.listen)?.port);
    expect(svc.spec.ports).toEqual([{ name: 'metrics', port: port?.containerPort, targetPort: 'metrics', protocol: 'TCP' }]);
    expect(svc.spec.publishNotReadyAddresses).toBe(true);
  });

  it('probes /healthz (liveness) and /readyz (readiness) on that port', () => {
    expect(ctr.livenessProbe.httpGet).toMatchObject({ path: '/healthz', port: 'metrics' });
    expect(ctr.readinessProbe.httpGet).toMatchObject({ path: '/readyz', port: 'metrics' });
  });

  it('keeps state_dir on a volume claim of its own', () => {
    const claim = sts.spec.volumeClaimTemplates[0];
    expect(sts.spec.volumeClaimTemplates).toHaveLength(1);
    expect(claim?.spec.accessModes).toEqual(['ReadWriteOnce']);
    expect(ctr.volumeMounts.find((m) => m.name === claim?.metadata.name)).toEqual({ name: claim?.metadata.name, mountPath: config.state_dir });
  });

  it('gives SIGTERM time for the OTLP flush and the collectors in flight', () => {
    // otlp.timeout plus the sink's 2 s confirmation margin, then the engine's 10 s stop limit.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(config.otlp.timeout / 1000 + 2 + 10);
  });

  it('meets the restricted Pod Security Standard, as the image user, with a read-only root', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001, seccompProfile: { type: 'RuntimeDefault' } });
    expect(ctr.securityContext.capabilities.drop).toEqual(['ALL']);
    expect(readText(fromRoot('Dockerfile'))).toMatch(new RegExp(`^USER ${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}$`, 'm'));
    expect(only('Namespace')).toMatchObject({ metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } });
    const writable = ctr.volumeMounts.filter((m) => m.readOnly !== true).map((m) => m.mountPath);
    expect(writable.sort()).toEqual([config.state_dir, '/tmp'].sort());
  });

  it('requests resources and limits memory', () => {
    expect(Object.keys(ctr.resources.requests).sort()).toEqual(['cpu', 'memory']);
    expect(ctr.resources.limits.memory).toMatch(/^\d+Mi$/);
  });
});

describe('ServiceMonitor and PrometheusRule', () => {
  const temp = mkdtempSync(join(tmpdir(), 'edge-deploy-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('the ServiceMonitor selects the Service and scrapes its "metrics" port at /metrics', () => {
    expect(svc.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
    expect(monitor.spec.namespaceSelector?.matchNames).toEqual([svc.metadata.namespace]);
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: svc.spec.ports[0]?.name, path: '/metrics' })]);
  });

  it('the PrometheusRules pass `promtool check rules`, loaded together as Prometheus would', () => {
    expect(rules.length).toBeGreaterThan(0);
    const files = rules.map((r) => {
      const file = join(temp, `${r.metadata.name}.yml`);
      writeFileSync(file, stringify({ groups: r.spec.groups }));
      return file;
    });
    const result = promtool(['check', 'rules', ...files]);
    expect(result.ok, result.output).toBe(true);
  });

  // The manifest is generated from prometheus/*.yml (`npx vitest run test/deploy -u`
  // rewrites it); a rule change that is not carried over fails here.
  it('carry exactly the groups of prometheus/*.yml, one object per file', async () => {
    expect(ruleFiles().length).toBeGreaterThan(0);
    await expect(renderPrometheusRules(kustomize.namespace)).toMatchFileSnapshot(join(DIR, 'prometheusrule.yaml'));
    expect(rules.map((r) => r.metadata.annotations?.[SOURCE_ANNOTATION]).sort()).toEqual(ruleFiles().map(repoPath).sort());
  });

  it('the rules\' job="..." matchers name the job both Prometheus setups give the exporter', () => {
    const exprs = rules.flatMap((r) => r.spec.groups.flatMap((g) => g.rules.map((x) => String(x.expr))));
    const jobs = new Set(exprs.flatMap((e) => [...e.matchAll(/\bjob="([^"]+)"/g)].map((m) => m[1])));
    // A ServiceMonitor's job label is the Service's name; the compose job is named the same.
    for (const job of jobs) expect(job).toBe(svc.metadata.name);
    const compose = readText(fromRoot('deploy/compose/prometheus.yml'));
    expect(compose).toContain(`job_name: ${svc.metadata.name}`);
  });
});
