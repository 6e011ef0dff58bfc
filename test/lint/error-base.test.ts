// Every error the project throws carries a stable `code` and its `cause`
// under one base, EdgeError (src/shared/errors.ts): no error class of src
// reaches Error but through it, and no plain `new Error(`, `RangeError(` or
// `TypeError(` is thrown (a bug is an InternalError, EDGE_INTERNAL; an
// argument a caller got wrong in code an ArgumentError, EDGE_ARGUMENT). Left
// alone on purpose: the AggregateError of a run whose every request failed,
// which describeError reads by its first.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

interface Source {
  readonly file: string;
  readonly text: string;
}

const BUILT_IN_ERRORS = new Set(['Error', 'RangeError', 'TypeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError', 'AggregateError']);
const BASE = 'EdgeError';

/** `text` with its comments blanked out, line breaks kept (so line numbers hold): a comment may name `new Error(`. */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:\\'"`])\/\/.*$/gm, '$1');
}

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/** Each error class not under the base, and each plain Error made, as `file:line what`. */
function outsideTheBase(sources: readonly Source[]): string[] {
  const parents = new Map<string, string>();
  const classes: Array<{ name: string; parent: string; where: string }> = [];
  const made: string[] = [];
  for (const { file, text } of sources) {
    const body = code(text);
    for (const m of body.matchAll(/\bclass\s+(\w+)(?:<[^>]*>)?\s+extends\s+([\w.]+)/g)) {
      const name = m[1]!;
      const parent = m[2]!;
      parents.set(name, parent);
      classes.push({ name, parent, where: `${file}:${lineOf(body, m.index)}` });
    }
    for (const m of body.matchAll(/(?<![\w.$])(?:new\s+)?(Error|RangeError|TypeError)\s*\(/g)) made.push(`${file}:${lineOf(body, m.index)} makes a plain ${m[1]!}`);
  }
  const underBase = (name: string, seen: ReadonlySet<string>): boolean => {
    const parent = parents.get(name);
    if (parent === undefined || seen.has(name)) return false;
    if (parent === BASE) return true;
    return underBase(parent, new Set([...seen, name]));
  };
  /** Whether `name` is an error class at all: one of the built-ins, anything named *Error, or a class of src extending either. */
  const isError = (name: string, seen: ReadonlySet<string>): boolean => {
    if (BUILT_IN_ERRORS.has(name) || name.endsWith('Error')) return true;
    const parent = parents.get(name);
    return parent !== undefined && !seen.has(name) && isError(parent, new Set([...seen, name]));
  };
  const strays = classes
    .filter(({ name, parent }) => name !== BASE && isError(parent, new Set()) && !underBase(name, new Set()))
    .map(({ name, parent, where }) => `${where} class ${name} extends ${parent}, not under ${BASE}`);
  return [...strays, ...made];
}

function sourcesUnder(dir: string): Source[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => {
      const path = join(entry.parentPath, entry.name);
      return { file: relative(process.cwd(), path), text: readFileSync(path, 'utf8') };
    });
}

describe('one error base', () => {
  it('holds for every file of src', () => {
    const sources = sourcesUnder('src');
    expect(sources.length).toBeGreaterThan(100);
    expect(outsideTheBase(sources)).toEqual([]);
  });

  it('finds the classes and errors planted outside it, and passes those under it', () => {
    const planted: Source = {
      file: 'src/x/planted.ts',
      text: [
        'export class Stray extends Error {}',
        'class Loose extends RangeError { readonly code = "EDGE_LOOSE"; }',
        'class Deeper extends Stray {}',
        'export function f(): never { throw new Error("x"); }',
        'export const g = () => Promise.reject(Error("y"));',
        'class Outside extends AbortError {}',
        'export function l(): never { throw new RangeError("an argument"); }',
        'export function m(): never { throw new TypeError("another"); }',
      ].join('\n'),
    };
    const fine: Source = {
      file: 'src/x/fine.ts',
      text: [
        'export abstract class EdgeError extends Error {}',
        'abstract class ApiError extends EdgeError {}',
        'class TimeoutError extends ApiError { readonly code = "EDGE_TIMEOUT"; }',
        'class Generic<T> extends EdgeError { readonly code = "EDGE_G"; constructor(readonly t: T) { super("g"); } }',
        '// a comment may say: throw new Error("old way")',
        '/* so may a block:',
        '   new Error("x") */',
        'const url = "http://example.com/"; // not a comment start inside a string',
        'export function h(err: unknown): boolean { return err instanceof Error; }',
        'export function i(): never { throw new InternalError("z"); }',
        'export function j(): never { throw new ArgumentError("an argument"); }',
        'class Pool extends Map<string, number> {}',
        'export const k = [url, TimeoutError, Generic, Pool];',
      ].join('\n'),
    };
    expect(outsideTheBase([fine])).toEqual([]);
    expect(outsideTheBase([fine, planted])).toEqual([
      'src/x/planted.ts:1 class Stray extends Error, not under EdgeError',
      'src/x/planted.ts:2 class Loose extends RangeError, not under EdgeError',
      'src/x/planted.ts:3 class Deeper extends Stray, not under EdgeError',
      'src/x/planted.ts:6 class Outside extends AbortError, not under EdgeError',
      'src/x/planted.ts:4 makes a plain Error',
      'src/x/planted.ts:5 makes a plain Error',
      'src/x/planted.ts:7 makes a plain RangeError',
      'src/x/planted.ts:8 makes a plain TypeError',
    ]);
  });
});
