// Turns zod issues into messages a person editing YAML understands, without
// ever echoing an input value (a value may be a secret).
import type { z } from 'zod';
import type { PathProblem, YamlPath } from './env.js';
import { knownKeysAt } from './json-schema.js';
import type { JsonSchema } from './json-schema.js';

const NOUNS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a mapping',
  // A free-keyed mapping such as otlp.headers; YAML users know no records.
  record: 'a mapping',
  array: 'a list',
};

function kindOf(value: unknown): string {
  if (value === null) return 'null (an empty value)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number' && !Number.isInteger(value)) return 'a fractional number';
  return NOUNS[typeof value] ?? typeof value;
}

/** Per-parse error map: friendlier wording for the common issue codes; undefined keeps zod's. */
export function issueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'required';
      return `expected ${NOUNS[issue.expected] ?? issue.expected}, got ${kindOf(issue.input)}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      return `expected ${issue.origin === 'string' ? 'a length' : 'a number'} ${issue.inclusive ? '>=' : '>'} ${issue.minimum}`;
    case 'too_big':
      return `expected ${issue.origin === 'string' ? 'a length' : 'a number'} ${issue.inclusive ? '<=' : '<'} ${issue.maximum}`;
    case 'invalid_value':
      return `expected one of: ${issue.values.map((v) => String(v)).join(', ')}`;
    default:
      return undefined;
  }
}

/** One problem per issue; an unknown-keys issue becomes one problem per key, at that key. */
export function issueProblems(issues: readonly z.core.$ZodIssue[], schema: JsonSchema): PathProblem[] {
  return issues.flatMap((issue): PathProblem[] => {
    const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
    if (issue.code !== 'unrecognized_keys') return [{ path, message: issue.message }];
    const known = knownKeysAt(schema, path);
    return issue.keys.map((key) => ({ path: [...path, key], message: unknownKeyMessage(key, known) }));
  });
}

function unknownKeyMessage(key: string, known: readonly string[]): string {
  if (known.length === 0) return 'unknown key';
  const guess = closest(key, known);
  return `unknown key${guess === undefined ? '' : ` (did you mean "${guess}"?)`}; expected one of: ${known.join(', ')}`;
}

function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
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

export function dottedPath(path: YamlPath): string {
  return path.map(String).join('.');
}
