// Throughput with wrk: a few connections for a fixed few seconds, so one run
// is bounded by `seconds` (plus wrk's own start-up).
import { spawn } from 'node:child_process';
import { PROMETHEUS_ACCEPT } from './client.js';

interface WrkOptions {
  readonly url: string;
  readonly gzip: boolean;
  readonly connections: number;
  readonly threads: number;
  readonly seconds: number;
}

export interface WrkResult {
  readonly requestsPerSecond: number;
  readonly transferBytesPerSecond: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Requests completed over the whole run. */
  readonly requests: number;
  readonly errors: string | undefined;
}

const UNITS: Readonly<Record<string, number>> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };
const BYTE_UNITS: Readonly<Record<string, number>> = { B: 1, KB: 2 ** 10, MB: 2 ** 20, GB: 2 ** 30 };

function durationMs(text: string | undefined): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text ?? '');
  return m?.[1] !== undefined && m[2] !== undefined ? Number(m[1]) * (UNITS[m[2]] ?? Number.NaN) : Number.NaN;
}

function parseWrk(out: string): WrkResult {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out)?.[1];
  const transfer = /Transfer\/sec:\s+([\d.]+)(B|KB|MB|GB)/.exec(out);
  const latency = (p: string): number => durationMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(out)?.[1]);
  const errors = /Socket errors:.*|Non-2xx or 3xx responses:.*/.exec(out)?.[0];
  // "Latency   1.23ms  0.45ms  12.34ms  90.00%": average, stdev, max.
  const max = /^\s+Latency\s+\S+\s+\S+\s+(\S+)/m.exec(out)?.[1];
  return {
    requestsPerSecond: Number(rps ?? Number.NaN),
    transferBytesPerSecond: transfer?.[1] !== undefined && transfer[2] !== undefined ? Number(transfer[1]) * (BYTE_UNITS[transfer[2]] ?? Number.NaN) : Number.NaN,
    p50Ms: latency('50'),
    p90Ms: latency('90'),
    p99Ms: latency('99'),
    maxMs: durationMs(max),
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? Number.NaN),
    errors,
  };
}

export function runWrk(binary: string, opts: WrkOptions): Promise<WrkResult> {
  const args = [
    `-t${opts.threads}`, `-c${opts.connections}`, `-d${opts.seconds}s`, '--latency',
    '-H', `Accept: ${PROMETHEUS_ACCEPT}`, '-H', `Accept-Encoding: ${opts.gzip ? 'gzip' : 'identity'}`,
    `${opts.url}/metrics`,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    // wrk stops itself after -d; the timer only guards against a hung wrk.
    const timer = setTimeout(() => child.kill('SIGKILL'), (opts.seconds + 30) * 1000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(parseWrk(out));
      else reject(new Error(`wrk exited with ${code}: ${out.trim()}`));
    });
  });
}
