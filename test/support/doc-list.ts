// Reads a list a page of the docs keeps between `<!-- name -->` and
// `<!-- /name -->`: the backticked names before each item's dash, in order.
// `page` is relative to the repository's root, e.g. `docs/waf-events.md`.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export function docList(page: string, name: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const start = text.indexOf(`<!-- ${name} -->`);
  const end = text.indexOf(`<!-- /${name} -->`);
  if (start < 0 || end < start) throw new Error(`${page} has no <!-- ${name} --> list`);
  const names: string[] = [];
  for (const line of text.slice(start, end).split('\n')) {
    const item = /^\s*- (.*?) — /.exec(line);
    if (item?.[1] === undefined) continue;
    for (const match of item[1].matchAll(/`([^`]+)`/g)) names.push(match[1] ?? '');
  }
  return names;
}
