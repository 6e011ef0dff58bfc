// Small numeric and Markdown helpers shared by the benchmarks.

interface Summary {
  readonly n: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly min: number;
  readonly max: number;
}

/** Nearest-rank percentile: with 50 samples p99 is the maximum, which is the honest reading of so few. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export function median(samples: readonly number[]): number {
  return percentile([...samples].sort((a, b) => a - b), 50);
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  return ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(2)} ms`;
}

export function fmtBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'n/a';
  const abs = Math.abs(bytes);
  if (abs >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(2)} MiB`;
  if (abs >= 2 ** 10) return `${(bytes / 2 ** 10).toFixed(1)} KiB`;
  return `${bytes.toFixed(0)} B`;
}

export function fmtRatio(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : 'n/a';
}

export function fmtInt(n: number): string {
  return n.toLocaleString('en-US');
}

/** A GitHub-flavoured Markdown table. */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly (string | number)[]>): string {
  const line = (cells: readonly (string | number)[]): string => `| ${cells.map(String).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Milliseconds since `start` (from performance.now()). */
export function since(start: number): number {
  return performance.now() - start;
}
