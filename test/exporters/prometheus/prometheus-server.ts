// Starts a real Prometheus (Debian's package) scraping given targets, and reads its HTTP API.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { freePort } from '../../support/ports.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface ScrapeJob {
  readonly name: string;
  readonly target: string;
  readonly path: string;
  /** More scrape_config entries in YAML flow style, e.g. `scheme: https, tls_config: { ca_file: /x }`. */
  readonly settings?: string;
}

export interface TargetState {
  readonly job: string;
  readonly health: string;
  readonly lastError: string;
}

/** One series of a range-vector selection: its raw samples, oldest first, as [seconds, value]. */
export interface RangeSeries {
  readonly metric: Record<string, string>;
  readonly values: [number, string][];
}

export interface RunningPrometheus {
  readonly url: string;
  /** Waits until Prometheus answers its readiness probe. */
  waitReady(timeoutMs: number): Promise<void>;
  /** Its log so far (stderr). */
  log(): string;
  /** Waits until every job has been scraped at least once; returns the targets' state. */
  waitForScrapes(timeoutMs: number): Promise<TargetState[]>;
  /** An instant query; at `timeSec` (Unix seconds, millisecond precision) or Prometheus' now. */
  query(promql: string, timeSec?: number): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** The raw samples a range selector (`metric{...}[10m]`) selects, at `timeSec` or now. */
  select(rangeSelector: string, timeSec?: number): Promise<RangeSeries[]>;
  /** GET an API path (under /api/v1) and return its `data`. */
  api<T>(path: string): Promise<T>;
  stop(): Promise<void>;
}

interface PrometheusOptions {
  /** Serve /api/v1/write (`--web.enable-remote-write-receiver`). */
  readonly remoteWriteReceiver?: boolean;
  /** storage.tsdb.out_of_order_time_window, e.g. `1h`. */
  readonly outOfOrderTimeWindow?: string;
  /** scrape_interval (and scrape_timeout) in ms (default 1000): a test that waits on scrapes can wait less. */
  readonly scrapeIntervalMs?: number;
}

export async function startPrometheus(jobs: readonly ScrapeJob[], options: PrometheusOptions = {}): Promise<RunningPrometheus> {
  const bin = process.env.PROMETHEUS ?? 'prometheus';
  const dir = await mkdtemp(join(tmpdir(), 'edge-exporter-prom-'));
  const config = [
    `global: { scrape_interval: ${options.scrapeIntervalMs ?? 1000}ms, scrape_timeout: ${options.scrapeIntervalMs ?? 1000}ms }`,
    ...(options.outOfOrderTimeWindow === undefined ? [] : [`storage: { tsdb: { out_of_order_time_window: ${options.outOfOrderTimeWindow} } }`]),
    ...(jobs.length === 0 ? [] : ['scrape_configs:']),
    ...jobs.map((j) => `  - { job_name: ${j.name}, metrics_path: ${j.path}, static_configs: [{ targets: ['${j.target}'] }]${j.settings === undefined ? '' : `, ${j.settings}`} }`),
  ].join('\n');
  await writeFile(join(dir, 'prometheus.yml'), config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const flags = [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'];
  if (options.remoteWriteReceiver === true) flags.push('--web.enable-remote-write-receiver');
  const child = spawn(bin, flags, {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new Error(`${bin} not found: run scripts/install-test-deps.sh (Debian package "prometheus")`, { cause: error }) : error),
    );
  }).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });

  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus API ${path}: ${body.error ?? response.status}`);
    return body.data;
  };

  return {
    url,
    async waitReady(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while ((await fetch(`${url}/-/ready`).then((r) => r.status, () => 0)) !== 200) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`Prometheus did not become ready in time; its log:\n${log}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    log: () => log,
    async waitForScrapes(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const targets = await api<{ activeTargets: { labels: Record<string, string>; health: string; lastError: string }[] }>('/api/v1/targets').catch(() => undefined);
        const scraped = targets?.activeTargets.filter((t) => t.health !== 'unknown') ?? [];
        if (targets !== undefined && scraped.length === jobs.length) {
          return scraped.map((t) => ({ job: t.labels.job ?? '', health: t.health, lastError: t.lastError }));
        }
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`Prometheus did not scrape every job in time; its log:\n${log}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    async query(promql, timeSec) {
      const data = await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(queryPath(promql, timeSec));
      return data.result;
    },
    async select(rangeSelector, timeSec) {
      const data = await api<{ resultType: string; result: RangeSeries[] }>(queryPath(rangeSelector, timeSec));
      if (data.resultType !== 'matrix') throw new Error(`${rangeSelector} is not a range selector (Prometheus answered a ${data.resultType})`);
      return data.result;
    },
    api: (path) => api(`/api/v1${path}`),
    async stop() {
      await stopChild(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function queryPath(promql: string, timeSec: number | undefined): string {
  return `/api/v1/query?query=${encodeURIComponent(promql)}${timeSec === undefined ? '' : `&time=${timeSec.toFixed(3)}`}`;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    // A Prometheus that does not shut down within 5 s (a stuck TSDB flush) is killed, so a test never hangs here.
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

