// Series identity, the one the whole exporter uses (watermarks, the ledger's
// counters, the family store's de-duplication). A key names a series in the
// persisted watermark map, so it must be stable across releases and
// restarts: label names are sorted and values JSON-quoted (escapes included).
export type Labels = Readonly<Record<string, string>>;

/**
 * Built with one join, so the key is one flat string: concatenated piece by
 * piece it would be a tree of string pieces, and the ledger and watermark maps
 * keep a key for every series (measured: over 150 B more per counter).
 */
export function seriesKey(family: string, labels: Labels): string {
  // The default sort compares UTF-16 code units, as the key always has.
  const names = Object.keys(labels).sort();
  const parts = new Array<string>(names.length);
  for (let i = 0; i < names.length; i++) {
    const name = names[i] ?? '';
    parts[i] = `${name}=${JSON.stringify(labels[name])}`;
  }
  return `${family}{${parts.join(',')}}`;
}
