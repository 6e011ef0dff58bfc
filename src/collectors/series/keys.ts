// Series identity, the one the whole exporter uses (watermarks, the ledger's
// counters, the family store's de-duplication). A key names a series in the
// persisted watermark map, so it must be stable across releases and
// restarts: label names are sorted and values JSON-quoted (escapes included).
export type Labels = Readonly<Record<string, string>>;

export function seriesKey(family: string, labels: Labels): string {
  const parts = Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return `${family}{${parts.join(',')}}`;
}
