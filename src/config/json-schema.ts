// The config schema as JSON Schema (input side: what users write), the plain
// data the docs generator and the "unknown key" hints read.
import { z } from 'zod';
import { configSchema } from './schema.js';

export type JsonSchema = z.core.JSONSchema.JSONSchema;

export function configJsonSchema(): JsonSchema {
  return z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' });
}

export function asSchema(value: z.core.JSONSchema._JSONSchema | undefined): JsonSchema | undefined {
  return typeof value === 'object' ? value : undefined;
}

/** The sub-schema at a YAML path (a record's entries share one schema). */
function schemaAt(root: JsonSchema, path: readonly (string | number)[]): JsonSchema | undefined {
  let node: JsonSchema | undefined = root;
  for (const segment of path) {
    if (node === undefined) return undefined;
    node = asSchema(node.properties?.[String(segment)]) ?? asSchema(node.additionalProperties);
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
