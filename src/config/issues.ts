// Turns zod issues into messages a person editing YAML understands, without
// ever echoing an input value (a value may be a secret).
import type { z } from 'zod';
import type { PathProblem, YamlPath } from './env.js';
import { knownKeysAt } from './schema-walk.js';
import { closest } from '../shared/closest.js';
import type { JsonSchema } from './schema-walk.js';

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

export function dottedPath(path: YamlPath): string {
  return path.map(String).join('.');
}
