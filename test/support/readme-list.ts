// Reads a list the README keeps between `<!-- name -->` and `<!-- /name -->`:
// the backticked names before each item's dash, in order.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const README = join(resolve(import.meta.dirname, '../..'), 'README.md');

export function readmeList(name: string): string[] {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf(`<!-- ${name} -->`);
  const end = text.indexOf(`<!-- /${name} -->`);
  if (start < 0 || end < start) throw new Error(`README.md has no <!-- ${name} --> list`);
  const names: string[] = [];
  for (const line of text.slice(start, end).split('\n')) {
    const item = /^\s*- (.*?) — /.exec(line);
    if (item?.[1] === undefined) continue;
    for (const match of item[1].matchAll(/`([^`]+)`/g)) names.push(match[1] ?? '');
  }
  return names;
}
