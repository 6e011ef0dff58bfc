// Hostile building blocks shared by the property tests: strings that break
// naive escaping, encoding or length assumptions, and numbers that are legal
// JSON but absurd as measurements. Every property runs with a fixed seed so a
// CI failure replays locally; fast-check prints the seed and the shrunk
// counterexample on failure.
import fc from 'fast-check';

/** One seed for every property file: a failure reproduces with the same runs. */
const SEED = 20_260_302;

/**
 * fc.assert options: fixed seed, a bounded number of runs, and a time limit
 * so that shrinking a failure on a loaded machine still ends well inside the
 * test timeout (a failure found before the limit is still reported).
 */
export function runs(numRuns: number): { seed: number; numRuns: number; interruptAfterTimeLimit: number } {
  return { seed: SEED, numRuns, interruptAfterTimeLimit: 15_000 };
}

/** Characters that exposition escaping, UTF-8 encoding or line-based readers get wrong. */
export const NASTY_CHARS = [
  '"', '\\', '\n', '\r', '\t', '\0', '\u0001', '\u001b', '\u007f', '\u0085', '\u2028', '\u2029',
  // Lone surrogates: valid in a JS string, not encodable as UTF-8.
  '\uD800', '\uDBFF', '\uDC00', '\uDFFF',
  '\uFFFD', '\uFEFF', '\uFFFF', 'ÿ', 'þ', 'Ã', '日', '😀', '{', '}', '=', ',', '#', ' ',
] as const;

/** Whole strings that look like syntax, numbers or other trouble. */
const NASTY_STRINGS = [
  '', ' ', '"', '\\', '\\n', '\\"', '\n', 'a\nb', '"}', 'x",evil="1', '} 1\nedge_evil 2', '# EOF', '# TYPE x counter',
  '\uD800', 'a\uD800b', '\uDC00a', '\uD83D', '😀', '\uFFFD', '\xff\xfe', 'Ã©', 'NaN', '-Inf', '+Inf', 'Infinity', '1e309',
  '-0', '0x10', '__proto__', 'constructor', 'toString', '__other__', 'null', 'undefined', '高风险',
] as const;

const nastyChar = fc.constantFrom(...NASTY_CHARS);

/** Short text mixing printable characters with the nasty ones. */
const mixedText = fc.string({ unit: fc.oneof(nastyChar, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 24 });

/** A long string (up to 10k code units) built from a repeated nasty seed. */
export const longText = fc
  .tuple(fc.oneof(mixedText.filter((s) => s.length > 0), nastyChar), fc.integer({ min: 200, max: 10_000 }))
  .map(([seed, length]) => seed.repeat(Math.ceil(length / seed.length)).slice(0, length));

/** Any hostile string: fixed trouble, mixed text, arbitrary code points, or very long. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 4, arbitrary: mixedText },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
  { weight: 1, arbitrary: longText },
);

/** Integers the schemas accept, as the upstream may send them: numbers or numeric strings with spaces. */
export function looseIntInput(int: fc.Arbitrary<number>): fc.Arbitrary<number | string> {
  return fc.oneof(
    { weight: 4, arbitrary: int },
    { weight: 1, arbitrary: int.map(String) },
    { weight: 1, arbitrary: fc.tuple(int, fc.constantFrom(' ', '  ', '\t', '\n')).map(([n, ws]) => `${ws}${n}${ws}`) },
  );
}

/** Any integer JSON can carry exactly (safe range), biased to edges. */
export const anyInt = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.constantFrom(0, -1, 1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 31, -(2 ** 31)),
  fc.maxSafeInteger(),
);

/** Finite doubles, huge, tiny, negative and fractional ones included (JSON has no NaN or Infinity). */
export const anyFinite = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1e308, -1e308, Number.MAX_VALUE, Number.MIN_VALUE, 5e-324, 0.1, 2 ** 53, -(2 ** 53), 1.5),
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
);

/** Numbers the schemas accept (looseNumber): numbers or numeric strings in the accepted forms. */
export function looseNumberInput(num: fc.Arbitrary<number> = anyFinite): fc.Arbitrary<number | string> {
  return fc.oneof(
    { weight: 4, arbitrary: num },
    { weight: 1, arbitrary: num.filter((n) => Number.isInteger(n) && Math.abs(n) < 1e21).map((n) => ` ${n} `) },
    { weight: 1, arbitrary: fc.constantFrom('1e3', '-2.5', '0.0', '12E-2', '9007199254740993', '1e308') },
  );
}

/** A value that is either present, null or absent (JSON drops undefined). */
export function nullish<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null | undefined> {
  return fc.oneof({ weight: 3, arbitrary: arb }, fc.constant(null), fc.constant(undefined));
}

/** A value that is present or absent. */
export function optional<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: 3, arbitrary: arb }, fc.constant(undefined));
}

/** Unknown keys the loose answer objects let through (hostile names, any JSON value). */
const extraKeys = fc.dictionary(
  fc.oneof(hostileString.filter((s) => s.length < 64), fc.constantFrom('__proto__', 'constructor')),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 3 },
);

/** `known` over `extra`, own properties only (spread, never Object.assign, so `__proto__` stays a key). */
export function loose<T extends object>(known: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.tuple(extraKeys, known).map(([extra, k]) => ({ ...extra, ...k }));
}

/** What travels on the wire: JSON drops undefined and turns -0 into 0. */
export function wire(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body)) as unknown;
}
