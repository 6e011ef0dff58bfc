// Operation 21: live-quality reports, newest first. A SearchFilter with one
// value is a fuzzy (substring) search, with several an exact match on any.
import type { Handler } from '../types.js';
import { fail, ok } from '../types.js';
import type { OrderBook } from './book.js';
import { isAbsent, isRecord } from './fields.js';
import type { QualityReport } from './model.js';
import { DEFAULT_PAGE, readPage, slicePage } from './paging.js';

const LABELS = ['dataId', 'uid'] as const;
type Label = (typeof LABELS)[number];
type Filter = (report: QualityReport) => boolean;

export function reportsHandler(book: OrderBook): Handler {
  return (req) => {
    if (!isRecord(req.body)) return fail(400, 400, 'request body must be a JSON object');
    const page = readPage(req.body, DEFAULT_PAGE);
    if (typeof page === 'string') return fail(400, 400, page);
    const filters = readFilters(req.body.filters);
    if (typeof filters === 'string') return fail(400, 400, filters);
    const matching = book
      .reports()
      .filter((r) => r.createdAt <= req.now && filters.every((f) => f(r)))
      .sort((a, b) => b.createdAt - a.createdAt || b.dataId - a.dataId);
    return ok({ total: matching.length, rows: slicePage(matching, page).map(reportRow) });
  };
}

function reportRow(r: QualityReport): Record<string, unknown> {
  return { dataId: r.dataId, uid: r.uid, image: r.image, message: r.message, date: r.date, createTime: r.createTime };
}

function readFilters(value: unknown): Filter[] | string {
  if (isAbsent(value)) return [];
  if (!Array.isArray(value)) return 'filters must be an array';
  const filters: Filter[] = [];
  for (const raw of value) {
    const filter = readFilter(raw);
    if (typeof filter === 'string') return filter;
    if (filter) filters.push(filter);
  }
  return filters;
}

/** A filter without values filters nothing; undefined then. */
function readFilter(raw: unknown): Filter | string | undefined {
  if (!isRecord(raw)) return 'each filter must be an object';
  const values = raw.value;
  if (isAbsent(values)) return undefined;
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) return 'filter value must be an array of strings';
  if (values.length === 0) return undefined;
  const label = LABELS.find((l) => l === raw.label);
  if (!label) return `filter label must be one of ${LABELS.join(', ')}`;
  const [only] = values;
  return values.length === 1 && only !== undefined
    ? (r) => field(r, label).includes(only)
    : (r) => values.includes(field(r, label));
}

function field(report: QualityReport, label: Label): string {
  return label === 'dataId' ? String(report.dataId) : report.uid;
}
