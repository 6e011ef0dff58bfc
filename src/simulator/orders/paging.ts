// pageNum/pageSize as the document's paged lists use them: pages start at 1.
import { isAbsent } from './fields.js';
import type { Item } from './fields.js';

export interface Page {
  readonly pageNum: number;
  readonly pageSize: number;
}

/** Used where the document makes paging optional; the same as the WAF log query's defaults. */
export const DEFAULT_PAGE: Page = { pageNum: 1, pageSize: 10 };

/** The page, or a request-level error message. `fallback` absent means both fields are required. */
export function readPage(body: Item, fallback?: Page): Page | string {
  const pageNum = readPositive(body, 'pageNum', fallback?.pageNum);
  if (typeof pageNum === 'string') return pageNum;
  const pageSize = readPositive(body, 'pageSize', fallback?.pageSize);
  if (typeof pageSize === 'string') return pageSize;
  return { pageNum, pageSize };
}

function readPositive(body: Item, field: string, fallback: number | undefined): number | string {
  const value = body[field];
  if (isAbsent(value) && fallback !== undefined) return fallback;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1) return value;
  return `${field} must be an integer of at least 1`;
}

export function slicePage<T>(items: readonly T[], page: Page): T[] {
  const start = (page.pageNum - 1) * page.pageSize;
  return items.slice(start, start + page.pageSize);
}
