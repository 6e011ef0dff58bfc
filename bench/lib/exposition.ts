// Reads samples back out of a Prometheus text exposition, so the soak compares
// what a scrape shows (not the daemon's internals) with the ground truth.

export interface ScrapedSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE_RE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const LABEL_RE = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function unescape(value: string): string {
  return value.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

/** Samples of the families in `names` (every sample when omitted); comments and other families skipped. */
export function parseSamples(text: string, names?: ReadonlySet<string>): ScrapedSample[] {
  const out: ScrapedSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE_RE.exec(line);
    if (m?.[1] === undefined || m[3] === undefined) continue;
    if (names !== undefined && !names.has(m[1])) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (m[2] ?? '').matchAll(LABEL_RE)) if (key !== undefined && value !== undefined) labels[key] = unescape(value);
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** A stable key for a series: name plus its labels sorted by name. */
export function sampleKey(name: string, labels: Readonly<Record<string, string>>): string {
  const parts = Object.keys(labels).sort().map((k) => `${k}=${JSON.stringify(labels[k])}`);
  return `${name}{${parts.join(',')}}`;
}
