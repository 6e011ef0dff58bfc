// Renders docs/config.md from the schema itself, so the reference cannot drift
// from what the loader accepts (a test fails when the committed file is stale).
import { ENV_OVERRIDES } from './env.js';
import { formatDuration } from './duration.js';
import { configJsonSchema } from './json-schema.js';
import { asSchema } from './schema-walk.js';
import type { JsonSchema } from './schema-walk.js';

interface Row {
  key: string;
  type: string;
  default: string;
  description: string;
}

export function renderConfigDocs(): string {
  const root = configJsonSchema();
  const sections = Object.entries(root.properties ?? {}).map(([key, value]) => renderSection(key, asSchema(value) ?? {}));
  return [
    '# Configuration reference',
    '',
    '<!-- Generated from src/config/schema.ts by `npm run docs`; do not edit by hand. -->',
    '',
    'The exporter reads one YAML file (`--config`), see `config.example.yaml`. Keys are snake_case;',
    'an unknown key is an error, so a typo is reported instead of silently ignored. Every problem is',
    'reported at once, each with its dotted path and `file:line:col`.',
    '',
    '- **Durations** are strings such as `500ms`, `15s`, `5m`, `1h`, `1d` or `1m30s`, or a bare integer of milliseconds.',
    '- **Relative paths** (`upstream.token_file`, `state_dir`) are resolved against the working directory.',
    '',
    '## Environment',
    '',
    '### Interpolation',
    '',
    'Any string value may reference environment variables: `${NAME}` is replaced by the variable',
    '(an unset variable is an error naming it), `${NAME:-fallback}` uses `fallback` when the variable is unset',
    'or empty, and `$${` writes a literal `${`. Keys, numbers and booleans are never interpolated, and the',
    'result is always a string.',
    '',
    '### Overrides',
    '',
    'These variables win over the file (an empty value counts as unset):',
    '',
    '| Variable | Sets |',
    '|---|---|',
    ...ENV_OVERRIDES.map((o) => {
      const clears = o.clears.map((c) => `; clears \`${c.join('.')}\``).join('');
      const single = o.path[0] === 'upstream' ? '; refused with `accounts:` (set it per account)' : '';
      return `| \`${o.name}\` | \`${o.path.join('.')}\`${clears}${single} |`;
    }),
    '',
    ...sections,
  ].join('\n');
}

function renderSection(key: string, schema: JsonSchema): string {
  const items = itemRows(key, schema);
  const list = items.length > 0;
  const rows = schema.properties ? rowsOf(key, schema, false) : list ? [{ ...row(key, schema), description: 'A list of mappings, each with the keys below.' }, ...items] : [row(key, schema)];
  return [
    `## \`${key}\``,
    '',
    ...((schema.properties || list) && schema.description ? [schema.description, ''] : []),
    '| Key | Type | Default | Description |',
    '|---|---|---|---|',
    ...rows.map((r) => `| \`${r.key}\` | ${r.type} | ${r.default} | ${cell(r.description)} |`),
    '',
  ].join('\n');
}

/** Rows for every key under a mapping, in declaration order; nested mappings get a row and then their keys. */
function rowsOf(prefix: string, schema: JsonSchema, includeSelf: boolean): Row[] {
  const self = includeSelf ? [row(prefix, schema)] : [];
  if (schema.properties) {
    return [
      ...self,
      ...Object.entries(schema.properties).flatMap(([key, value]) => {
        const child = asSchema(value) ?? {};
        return child.properties ? rowsOf(`${prefix}.${key}`, child, true) : [recordOrLeaf(`${prefix}.${key}`, child)];
      }),
    ];
  }
  return self;
}

/**
 * A list of mappings (`accounts`): a row per key of its items, `key[].name`,
 * one level deep; a nested section's keys are those of the top-level section
 * of the same name, documented there.
 */
function itemRows(key: string, schema: JsonSchema): Row[] {
  const items = Array.isArray(schema.items) ? undefined : asSchema(schema.items);
  return Object.entries(items?.properties ?? {}).map(([name, value]) => row(`${key}[].${name}`, asSchema(value) ?? {}));
}

function recordOrLeaf(key: string, schema: JsonSchema): Row {
  const names = asSchema(schema.propertyNames)?.enum;
  const entry = asSchema(schema.additionalProperties);
  if (!names || !entry) return row(key, schema);
  return {
    key: `${key}.<name>`,
    type: typeOf(entry),
    default: 'none',
    description: `${schema.description ?? ''} \`<name>\` is one of: ${names.map((n) => `\`${String(n)}\``).join(', ')}.`,
  };
}

function row(key: string, schema: JsonSchema): Row {
  return {
    key,
    type: typeOf(schema),
    default: schema.properties || schema.default === undefined ? 'none' : `\`${display(schema.default)}\``,
    description: schema.description ?? '',
  };
}

function typeOf(schema: JsonSchema): string {
  const custom = schema['x-type'];
  if (custom === 'duration') return `duration${durationRange(schema)}`;
  if (typeof custom === 'string') return custom;
  if (schema.enum) return schema.enum.map((v) => `\`${display(v)}\``).join(' \\| ');
  if (schema.properties) return 'mapping';
  if (schema.format === 'uri') return 'URL';
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? 'any');
  return `${type}${range(schema)}`;
}

/** A duration's bounds as users write durations (the schema holds milliseconds). */
function durationRange(schema: JsonSchema): string {
  const { minimum: min, maximum: max } = schema;
  if (min === undefined || max === undefined) return '';
  return `, ${formatDuration(min)} to ${formatDuration(max)}`;
}

function range(schema: JsonSchema): string {
  const bounds: string[] = [];
  if (schema.exclusiveMinimum !== undefined) bounds.push(`> ${schema.exclusiveMinimum}`);
  if (schema.minimum !== undefined && schema.minimum > Number.MIN_SAFE_INTEGER) bounds.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER) bounds.push(`≤ ${schema.maximum}`);
  return bounds.length > 0 ? ` ${bounds.join(', ')}` : '';
}

function display(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
