// "Did you mean": the one spelling-suggestion rule of every place a person
// types a name we know (config keys, commands, operations, options), so a
// typo is answered the same way everywhere.

/**
 * The candidate nearest to `word`, or undefined when none is near enough to
 * be a likely typo. Case does not count; a plural and its singular are one
 * word ('retries' -> 'retry', 'listDomain' -> 'listDomains').
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  const stemmed = stem(word.toLowerCase());
  for (const candidate of candidates) {
    const lower = candidate.toLowerCase();
    const d = Math.min(editDistance(word.toLowerCase(), lower), editDistance(stemmed, stem(lower)));
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** The singular of an English plural, as far as names go ('entries' -> 'entry', 'domains' -> 'domain'). */
function stem(word: string): string {
  return word.replace(/ies$/, 'y').replace(/(?<!s)s$/, '');
}

/** Levenshtein distance, with transpositions counted as one edit ('tiemout' -> 'timeout'). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, at(i - 2, j - 2) + 1);
      const row = rows[i];
      if (row) row[j] = d;
    }
  }
  return at(a.length, b.length);
}
