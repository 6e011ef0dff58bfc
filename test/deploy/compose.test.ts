// deploy/compose: the five services exist and are wired to each other the way
// their own config files say (host names, ports, mount paths), the exporter's
// config loads with the exporter's loader, Prometheus' config passes
// `promtool check config` with the repository's rule files, and Grafana is
// provisioned with the datasource and the dashboards folder.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { parseHostPort } from '../../src/config/fields.js';
import { fromRoot, promtool, readText, repoPath, ROOT, walk, yamlDocument } from './files.js';
import { ruleFiles } from './prometheus-rules.js';
import {
  composeFile,
  grafanaDashboardProviders,
  grafanaDatasources,
  otelCollectorConfig,
  prometheusConfig,
  type ComposeService,
} from './shapes.js';

const DIR = fromRoot('deploy/compose');
const compose = composeFile.parse(yamlDocument(join(DIR, 'docker-compose.yml')));
const IMAGE_CONFIG = '/etc/edge-exporter/config.yaml';

function service(name: string): ComposeService {
  const s = compose.services[name];
  if (!s) throw new Error(`compose service ${name} missing`);
  return s;
}

/** Short-syntax volumes as {source, target}; a source starting with . is a path relative to the compose file. */
function mounts(s: ComposeService): { source: string; target: string; local: boolean }[] {
  return (s.volumes ?? []).map((v) => {
    const [source = '', target = ''] = v.split(':');
    return { source, target, local: source.startsWith('.') };
  });
}

/** The host path mounted at `target`, resolved from the compose file's folder. */
function hostPathAt(s: ComposeService, target: string): string {
  const mount = mounts(s).find((m) => m.target === target && m.local);
  if (!mount) throw new Error(`nothing from the repository is mounted at ${target}`);
  return resolve(DIR, mount.source);
}

/** Value of a `--flag=value` in a command. */
function flag(s: ComposeService, name: string): string {
  const arg = (s.command ?? []).find((a) => a.startsWith(`${name}=`));
  if (!arg) throw new Error(`${name} not in the command`);
  return arg.slice(name.length + 1);
}

/** What compose would hand the exporter: `${VAR:-}` with VAR unset is an empty string. */
function exporterEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service('exporter').environment ?? {}).map(([name, value]) => {
      const ref = /^\$\{(\w+):-([^}]*)\}$/.exec(value);
      return [name, ref ? (overrides[ref[1] ?? ''] ?? ref[2] ?? '') : value];
    }),
  );
}

const exporterFile = hostPathAt(service('exporter'), IMAGE_CONFIG);
const exporterConfig = loadConfig({ file: exporterFile, env: exporterEnv() });
const collectorService = service('otel-collector');
const collector = otelCollectorConfig.parse(yamlDocument(hostPathAt(collectorService, flag(collectorService, '--config'))));

describe('compose: services', () => {
  it('has the exporter, the simulator, Prometheus, Grafana and an OpenTelemetry Collector', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['exporter', 'grafana', 'otel-collector', 'prometheus', 'simulator']);
  });

  it('builds the exporter and the simulator from the repository Dockerfile as one image', () => {
    for (const name of ['exporter', 'simulator']) {
      const s = service(name);
      expect(resolve(DIR, s.build?.context ?? '')).toBe(ROOT);
      expect(existsSync(resolve(DIR, s.build?.context ?? '', s.build?.dockerfile ?? ''))).toBe(true);
      expect(s.image).toBe(service('exporter').image);
    }
  });

  it.each([
    ['prometheus', /^prom\/prometheus:v\d+\.\d+\.\d+$/],
    ['grafana', /^grafana\/grafana:\d+\.\d+\.\d+$/],
    ['otel-collector', /^otel\/opentelemetry-collector-contrib:\d+\.\d+\.\d+$/],
  ])('%s runs the official image at a pinned version', (name, pattern) => {
    expect(service(name).image).toMatch(pattern);
  });

  it('publishes ports on loopback only (Grafana admits anonymous viewers)', () => {
    const ports = Object.values(compose.services).flatMap((s) => s.ports ?? []);
    expect(ports.length).toBeGreaterThan(0);
    for (const port of ports) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    expect(ports).toContain('127.0.0.1:3000:3000');
  });

  it('declares every named volume it mounts', () => {
    const named = Object.values(compose.services).flatMap((s) => mounts(s).filter((m) => !m.local).map((m) => m.source));
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(Object.keys(compose.volumes ?? {})).toContain(name);
  });

  it('every file it mounts from deploy/compose exists', () => {
    const files = Object.values(compose.services)
      .flatMap(mounts)
      .filter((m) => m.local && m.source.startsWith('./'));
    for (const m of files) expect(existsSync(resolve(DIR, m.source)), m.source).toBe(true);
  });
});

describe('compose: the simulator and the exporter', () => {
  it('serves the simulator on every interface of its container, with a health check of its own', () => {
    const command = service('simulator').command ?? [];
    expect(command[0]).toBe('simulate');
    expect(command[command.indexOf('--listen') + 1]).toBe('0.0.0.0:9400');
    expect(service('simulator').healthcheck?.test.join(' ')).toContain('http://127.0.0.1:9400/');
  });

  it('the exporter config loads with the exporter loader and points at the simulator and the collector', () => {
    expect(exporterConfig.upstream.api_url).toBe('http://simulator:9400');
    expect(exporterConfig.upstream.token).toBe((service('simulator').command ?? []).at(-1));
    expect(exporterConfig.waf_events.enabled).toBe(true);
    const otlp = new URL(exporterConfig.otlp.endpoint ?? '(otlp.endpoint not set)');
    expect(otlp.hostname).toBe('otel-collector');
    expect(otlp.pathname).toBe('/v1/logs');
    expect(otlp.port).toBe(String(parseHostPort(collector.receivers.otlp.protocols.http.endpoint)?.port));
  });

  it('runs the image default command on the mounted config and keeps state in a named volume', () => {
    const exporter = service('exporter');
    expect(exporter.command).toEqual(['run', '--config', IMAGE_CONFIG]);
    expect(mounts(exporter).find((m) => m.target === exporterConfig.state_dir)?.local).toBe(false);
    expect(exporter.stop_grace_period).toBe('30s');
    expect(exporter.depends_on).toMatchObject({ simulator: { condition: 'service_healthy' } });
  });

  it('the same config switches to a real account with EDGE_API_URL and EDGE_API_TOKEN on `docker compose up`', () => {
    const env = exporterEnv({ EDGE_API_URL: 'https://api.example.com', EDGE_API_TOKEN: 'tok-123' });
    const config = loadConfig({ file: exporterFile, env });
    expect(config.upstream.api_url).toBe('https://api.example.com');
    expect(config.upstream.token).toBe('tok-123');
  });
});

describe('compose: the OpenTelemetry Collector', () => {
  it('receives OTLP/HTTP on every interface and prints logs with the debug exporter', () => {
    expect(collector.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
    expect(collector.service.pipelines.logs.receivers).toEqual(['otlp']);
    expect(collector.service.pipelines.logs.exporters).toEqual(['debug']);
    expect(collector.exporters.debug.verbosity).toBe('detailed');
  });
});

describe('compose: Prometheus', () => {
  const prometheus = service('prometheus');
  const configFile = hostPathAt(prometheus, flag(prometheus, '--config.file'));
  const config = prometheusConfig.parse(yamlDocument(configFile));
  const rulesTarget = dirname(config.rule_files[0] ?? '');
  const temp = mkdtempSync(join(tmpdir(), 'edge-deploy-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('scrapes the exporter at its service name and listen port', () => {
    const job = config.scrape_configs.find((j) => j.job_name === 'edge-exporter');
    expect(job?.static_configs.flatMap((c) => c.targets)).toEqual([`exporter:${parseHostPort(exporterConfig.server.listen)?.port}`]);
  });

  it('loads the rule files (*.yml, not tests/) of the repository prometheus/ folder, mounted where rule_files looks', () => {
    expect(config.rule_files).toEqual([`${rulesTarget}/*.yml`]);
    expect(hostPathAt(prometheus, rulesTarget)).toBe(fromRoot('prometheus'));
  });

  it('passes `promtool check config`, rule files included', () => {
    // rule_files rewritten to the repository's folder: the container path does not exist here.
    const rulesDir = existsSync(fromRoot('prometheus')) ? fromRoot('prometheus') : temp;
    const local = join(temp, 'prometheus.yml');
    writeFileSync(local, readText(configFile).replace(`${rulesTarget}/`, `${rulesDir}/`));
    const result = promtool(['check', 'config', local]);
    expect(result.output).toContain('SUCCESS');
    expect(result.ok, result.output).toBe(true);
  });

  it('promtool sees every rule file of prometheus/ through the glob', () => {
    const files = ruleFiles();
    if (files.length === 0) return; // the folder has no rule files yet: nothing to find
    const local = join(temp, 'prometheus-glob.yml');
    writeFileSync(local, readText(configFile).replace(`${rulesTarget}/`, `${fromRoot('prometheus')}/`));
    const output = promtool(['check', 'config', local]).output;
    for (const file of files) expect(output).toContain(file);
  });
});

describe('compose: Grafana', () => {
  const grafana = service('grafana');
  const provisioning = hostPathAt(grafana, '/etc/grafana/provisioning');
  const datasources = grafanaDatasources.parse(yamlDocument(join(provisioning, 'datasources/prometheus.yaml')));
  const providers = grafanaDashboardProviders.parse(yamlDocument(join(provisioning, 'dashboards/edge-exporter.yaml')));

  it('has the Prometheus service as its default datasource', () => {
    expect(datasources.datasources).toHaveLength(1);
    expect(datasources.datasources[0]).toMatchObject({ type: 'prometheus', url: 'http://prometheus:9090', isDefault: true });
  });

  it('provisions the dashboards from the repository grafana/ folder', () => {
    expect(providers.providers).toHaveLength(1);
    expect(hostPathAt(grafana, providers.providers[0]?.options.path ?? '')).toBe(fromRoot('grafana'));
  });

  // File provisioning does not ask for import inputs: a dashboard whose panels
  // name ${DS_PROMETHEUS} without a variable of that name shows no data there.
  const dashboards = walk(fromRoot('grafana')).filter((f) => f.endsWith('.json')).map(repoPath);
  it('finds the dashboards to provision', () => {
    expect(dashboards.length).toBeGreaterThanOrEqual(3);
  });
  it.each(dashboards)('%s picks its datasource through a variable that exists', (file) => {
    const dashboard = JSON.parse(readText(fromRoot(file))) as unknown;
    const variables = new Set(templatingNames(dashboard));
    for (const uid of datasourceUids(dashboard).filter((u) => u.startsWith('$'))) {
      expect(variables, `${uid} in ${file}`).toContain(uid.replace(/^\$\{?([^}:]+).*$/, '$1'));
    }
  });
});

function templatingNames(dashboard: unknown): string[] {
  const list = (dashboard as { templating?: { list?: { name?: unknown }[] } }).templating?.list ?? [];
  return list.map((v) => v.name).filter((n): n is string => typeof n === 'string');
}

/** Every datasource uid (or legacy datasource name) referenced anywhere in the dashboard. */
function datasourceUids(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(datasourceUids);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => {
    if (key !== 'datasource') return datasourceUids(value);
    if (typeof value === 'string') return [value];
    const uid = (value as { uid?: unknown } | null)?.uid;
    return typeof uid === 'string' ? [uid] : [];
  });
}
