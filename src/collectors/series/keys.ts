// Series identity, the one the whole exporter uses (watermarks, the ledger's
// counters, the family store's de-duplication). A key names a series in the
// persisted watermark map, so it must be stable across releases and
// restarts: label names are sorted and values JSON-quoted (escapes included).
export type Labels = Readonly<Record<string, string>>;

/** Built without intermediate arrays: it runs for every counted increment and every published series. */
export function seriesKey(family: string, labels: Labels): string {
  // The default sort compares UTF-16 code units, as the key always has.
  const names = Object.keys(labels).sort();
  let key = `${family}{`;
  for (let i = 0; i < names.length; i++) {
    const name = names[i] ?? '';
    key += `${i === 0 ? '' : ','}${name}=${JSON.stringify(labels[name])}`;
  }
  return `${key}}`;
}
