// Every relative link of the README and of docs/ leads somewhere: the file
// (or folder) exists, and an anchor names a heading of the page it points to,
// spelt as GitHub spells a heading's anchor. Each topic lives once in docs/ and
// the others link to it, so a page renamed or a heading reworded must not
// leave a link dead. Links to other sites are not followed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The page without its fenced code blocks and inline code spans: text that only looks like Markdown. */
function prose(text: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker !== undefined && (fence === undefined || fence === marker)) {
      fence = fence === undefined ? marker : undefined;
      lines.push('');
      continue;
    }
    lines.push(fence === undefined ? line.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length)) : '');
  }
  return lines;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, ... */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker !== undefined && (fence === undefined || fence === marker)) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    const heading = fence === undefined ? /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1] : undefined;
    if (heading === undefined) continue;
    const slug = heading.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

interface Link { page: string; line: number; target: string }

function linksOf(page: string): Link[] {
  const links: Link[] = [];
  prose(readFileSync(join(ROOT, page), 'utf8')).forEach((text, i) => {
    for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      links.push({ page, line: i + 1, target });
    }
  });
  return links;
}

const links = PAGES.flatMap(linksOf);

describe('links in the README and docs/', () => {
  it('are found', () => {
    expect(links.length).toBeGreaterThan(50);
  });

  it.each(links.map((l) => [`${l.page}:${l.line} ${l.target}`, l] as const))('%s', (_name, link) => {
    const [path = '', anchor] = link.target.split('#');
    const file = path === '' ? join(ROOT, link.page) : resolve(ROOT, dirname(link.page), decodeURI(path));
    expect(existsSync(file), `${relative(ROOT, file)} does not exist`).toBe(true);
    if (anchor === undefined || anchor === '') return;
    expect(file.endsWith('.md'), 'an anchor into a page that is not Markdown').toBe(true);
    const anchors = anchorsOf(readFileSync(file, 'utf8'));
    expect(anchors.has(decodeURIComponent(anchor)), `${relative(ROOT, file)} has no heading #${anchor}`).toBe(true);
  });
});
