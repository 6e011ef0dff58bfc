// Reading a JSON Schema: the sub-schema at a YAML path and the keys it
// accepts. Apart from json-schema.ts, which builds the config's own, so the
// "unknown key" hints (issues.ts) can read a schema without importing the one
// that is built from them.
import type { z } from 'zod';

export type JsonSchema = z.core.JSONSchema.JSONSchema;

export function asSchema(value: z.core.JSONSchema._JSONSchema | undefined): JsonSchema | undefined {
  return typeof value === 'object' ? value : undefined;
}

/** The sub-schema at a YAML path (a record's entries share one schema, as a list's items do). */
function schemaAt(root: JsonSchema, path: readonly (string | number)[]): JsonSchema | undefined {
  let node: JsonSchema | undefined = root;
  for (const segment of path) {
    if (node === undefined) return undefined;
    const items: JsonSchema | undefined = typeof segment === 'number' && !Array.isArray(node.items) ? asSchema(node.items) : undefined;
    node = items ?? asSchema(node.properties?.[String(segment)]) ?? asSchema(node.additionalProperties);
  }
  return node;
}

/** Keys a mapping at `path` accepts: declared properties, or a record's enumerated key names. */
export function knownKeysAt(root: JsonSchema, path: readonly (string | number)[]): string[] {
  const node = schemaAt(root, path);
  if (node?.properties) return Object.keys(node.properties);
  const names = asSchema(node?.propertyNames)?.enum;
  return names ? names.map(String) : [];
}
