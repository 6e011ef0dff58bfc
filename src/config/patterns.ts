// Name patterns people write in the config: metric-family patterns (a glob
// such as `edge_topn_*`, or an anchored regex between slashes) and plain
// regexes for target names. Compiled here so the schema rejects a bad pattern
// at load time with its YAML path, and the collectors compile it the same way.
import { z } from 'zod';
import { EdgeError } from '../shared/errors.js';

/** Thrown by the compilers; the message says what is wrong without context, the caller adds where. */
export class PatternError extends EdgeError {
  readonly code = 'EDGE_PATTERN';
}

const REGEX_SPECIALS = /[.+^${}()|[\]\\]/g;

/**
 * A metric-family pattern: `/body/` is a regex matched against the whole name
 * (anchored, so `/edge_domain/` matches only that exact family); anything else
 * is a glob where `*` is any run of characters and `?` one character.
 */
export function compileMetricPattern(pattern: string): RegExp {
  if (pattern === '') throw new PatternError('must not be empty');
  if (pattern.length >= 2 && pattern.startsWith('/') && pattern.endsWith('/')) {
    // Checked alone first: wrapped, a body like `a)(b` would balance and pass.
    const body = checkedRegex(pattern.slice(1, -1)).source;
    return new RegExp(`^(?:${body})$`, 'u');
  }
  const body = pattern.replace(REGEX_SPECIALS, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'u');
}

/**
 * A target-name regex, searched in the name (not anchored, like grep): write
 * `^shop\.` or `\.example\.com$` to anchor it.
 */
export function compileNameRegex(source: string): RegExp {
  if (source === '') throw new PatternError('must not be empty');
  return checkedRegex(source);
}

function checkedRegex(source: string): RegExp {
  try {
    return new RegExp(source, 'u');
  } catch (err) {
    // SyntaxError text repeats the pattern, which is harmless (patterns are not secrets) and helps.
    const detail = (err instanceof Error ? err.message : String(err)).replace(/^Invalid regular expression: /, '');
    throw new PatternError(`invalid regular expression: ${detail}`);
  }
}

function problemOf(compile: (text: string) => RegExp, text: string): string | undefined {
  try {
    compile(text);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** A list of metric-family patterns, each checked at load time. */
export function metricPatternList() {
  return z.array(patternField(compileMetricPattern)).meta({ 'x-type': 'list of patterns' });
}

/** A list of target-name regexes, each checked at load time. */
export function nameRegexList() {
  return z.array(patternField(compileNameRegex)).meta({ 'x-type': 'list of regexes' });
}

function patternField(compile: (text: string) => RegExp) {
  return z.string().superRefine((text, ctx) => {
    const problem = problemOf(compile, text);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });
}
