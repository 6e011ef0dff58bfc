import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderConfigDocs } from '../../src/config/docs.js';
import { configJsonSchema } from '../../src/config/json-schema.js';
import { asSchema } from '../../src/config/schema-walk.js';
import type { JsonSchema } from '../../src/config/schema-walk.js';

const docsFile = fileURLToPath(new URL('../../docs/config.md', import.meta.url));

/** Every key of the schema, dotted, with its JSON Schema. */
function leaves(schema: JsonSchema, prefix = ''): [string, JsonSchema][] {
  return Object.entries(schema.properties ?? {}).flatMap(([key, value]) => {
    const child = asSchema(value) ?? {};
    const path = prefix ? `${prefix}.${key}` : key;
    return [[path, child] as [string, JsonSchema], ...leaves(child, path)];
  });
}

describe('docs/config.md', () => {
  it('is up to date', () => {
    const committed = readFileSync(docsFile, 'utf8');
    if (committed !== renderConfigDocs()) expect.fail('docs/config.md is stale: run npm run docs');
  });

  it.each(leaves(configJsonSchema()))('%s has a description', (_path, schema) => {
    expect(schema.description ?? '').not.toBe('');
  });

  it('documents every key and environment variable', () => {
    const docs = renderConfigDocs();
    for (const [path, schema] of leaves(configJsonSchema())) {
      if (!schema.properties) expect(docs).toContain(`\`${path}`);
    }
    for (const name of ['EDGE_API_URL', 'EDGE_LOGIN_URL', 'EDGE_API_TOKEN', '${NAME:-fallback}']) expect(docs).toContain(name);
  });
});
