// The config schema as JSON Schema (input side: what users write), the plain
// data the docs generator and the "unknown key" hints read.
import { z } from 'zod';
import { configSchema } from './schema.js';
import type { JsonSchema } from './schema-walk.js';

export function configJsonSchema(): JsonSchema {
  return z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' });
}
