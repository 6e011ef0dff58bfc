// Bodies outside the documented shapes: any JSON, any JS value stringified,
// an envelope around anything, a valid body with one node replaced by a value
// of another type, the text of a valid body damaged (cut, numbers that
// overflow to Infinity, a BOM), and raw bytes that are not UTF-8.
import fc from 'fast-check';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Paths to every node below the root of a JSON value. */
function paths(value: unknown, prefix: readonly (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => [[...prefix, i], ...paths(v, [...prefix, i])]);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => [[...prefix, k], ...paths(v, [...prefix, k])]);
  }
  return [];
}

/** A copy of `value` with the node at `path` replaced. */
function replaceAt(value: unknown, path: readonly (string | number)[], replacement: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return replacement;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaceAt(v, rest, replacement) : v));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === head ? replaceAt(v, rest, replacement) : v]));
  }
  return value;
}

/** A replacement of a different kind than the node it replaces (a wrong type in one field). */
function wrongType(original: unknown): fc.Arbitrary<unknown> {
  const others: fc.Arbitrary<unknown>[] = [
    fc.constant(null),
    fc.boolean(),
    fc.string({ maxLength: 8 }),
    fc.double(),
    fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
  ];
  const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  return fc.oneof(...others).filter((v) => kind(v) !== kind(original));
}

/** A valid body with exactly one node (any depth) given a value of another type. */
function mutatedOnce(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return valid.chain((body) => {
    const all = paths(body);
    if (all.length === 0) return fc.constant(body);
    return fc.constantFrom(...all).chain((path) => {
      const original = path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], body);
      return wrongType(original).map((replacement) => replaceAt(body, path, replacement));
    });
  });
}

/** The JSON text of a valid body, damaged. */
function damagedText(valid: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return valid.map((body) => JSON.stringify(body) ?? '').chain((text) =>
    fc.oneof(
      fc.nat({ max: Math.max(text.length - 1, 0) }).map((cut) => text.slice(0, cut)),
      fc.constantFrom('1e309', '-1e309', '1e-400', '123456789012345678901234567890').map((n) => text.replace(/-?\d+(\.\d+)?/g, n)),
      fc.constant(`\uFEFF${text}`),
      fc.constant(`${text}${text}`),
      fc.constantFrom('', ' ', 'null', '[]', '{}', 'true', '"x"', '<html>502</html>', '{"code":200', '{"code":"200","data":null}'),
    ),
  );
}

/** Any body outside the shape, as the bytes an upstream could send. */
export function outsideBodies(valid: fc.Arbitrary<unknown>): fc.Arbitrary<string | Uint8Array> {
  const envelope = fc.record(
    {
      code: fc.oneof(fc.constantFrom<Json>(200, '200', ' 200', 200.5, '2e2', 0, -200), fc.jsonValue({ maxDepth: 1 })),
      msg: fc.jsonValue({ maxDepth: 1 }),
      data: fc.jsonValue({ maxDepth: 4 }),
      rows: fc.jsonValue({ maxDepth: 4 }),
      total: fc.jsonValue({ maxDepth: 1 }),
    },
    { requiredKeys: ['code'] },
  );
  return fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    fc.anything({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? ''),
    envelope.map((v) => JSON.stringify(v)),
    mutatedOnce(valid).map((v) => JSON.stringify(v) ?? ''),
    mutatedOnce(valid).map((v) => JSON.stringify(v) ?? ''),
    damagedText(valid),
    fc.uint8Array({ maxLength: 64 }),
    valid.map((body) => Buffer.concat([Buffer.from(JSON.stringify(body) ?? '').subarray(0, 20), Buffer.from([0xff, 0xfe, 0xc3])])),
  );
}
