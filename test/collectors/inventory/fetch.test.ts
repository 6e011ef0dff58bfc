// The pager on its own, against small fakes of a paged list: honest, lying
// about its total, silent about it, or never ending.
import { describe, expect, it } from 'vitest';
import { readAllPages, type PageAnswer } from '../../../src/collectors/inventory/fetch.js';
import type { CollectorLogger } from '../../../src/collectors/collector.js';

interface Fake {
  readonly requested: number[];
  page(pageNum: number, pageSize: number): Promise<PageAnswer<number>>;
}

/** A list of `rows` rows that reports `total` (undefined: no total field). */
function fakeList(rows: number, total: number | undefined): Fake {
  const requested: number[] = [];
  return {
    requested,
    page: async (pageNum, pageSize) => {
      requested.push(pageNum);
      const from = (pageNum - 1) * pageSize;
      const slice = Array.from({ length: Math.max(0, Math.min(pageSize, rows - from)) }, (_, i) => from + i);
      return { rows: slice, total };
    },
  };
}

function logger(warnings: object[]): CollectorLogger {
  const self: CollectorLogger = { debug: () => {}, info: () => {}, warn: (obj) => void warnings.push(obj), child: () => self };
  return self;
}

describe('readAllPages', () => {
  it.each([
    ['an exact multiple of the page size', 20, 20, [1, 2]],
    ['a short last page', 23, 23, [1, 2, 3]],
    ['an empty list', 0, 0, [1]],
    ['a total larger than the rows (stops on the empty page)', 23, 1_000_000, [1, 2, 3, 4]],
    ['a total smaller than the rows (stops once it is reached)', 23, 5, [1]],
    ['no total (stops on the short page)', 23, undefined, [1, 2, 3]],
    ['no total and a full last page (stops on the empty page)', 20, undefined, [1, 2, 3]],
  ])('%s', async (_, rows, total, pages) => {
    const list = fakeList(rows, total);
    const warnings: object[] = [];
    const read = await readAllPages('listDomains', list.page, { pageSize: 10, maxPages: 100 }, logger(warnings));
    expect(list.requested).toEqual(pages);
    expect(read).toEqual(Array.from({ length: total !== undefined && total < rows ? 10 : rows }, (_, i) => i));
    expect(warnings).toEqual([]);
  });

  it('takes a page far larger than pageSize (an upstream ignoring it) without overflowing the stack', async () => {
    const huge = 300_000;
    const page = async (): Promise<PageAnswer<number>> => ({ rows: Array.from({ length: huge }, (_, i) => i), total: huge });
    const read = await readAllPages('listDomains', page, { pageSize: 100, maxPages: 10 }, logger([]));
    expect(read).toHaveLength(huge);
    expect(read[huge - 1]).toBe(huge - 1);
  });

  it('gives up after maxPages on a list that never ends, with a warning', async () => {
    const requested: number[] = [];
    const endless = async (pageNum: number, pageSize: number): Promise<PageAnswer<number>> => {
      requested.push(pageNum);
      return { rows: Array.from({ length: pageSize }, () => pageNum), total: 1e9 };
    };
    const warnings: object[] = [];
    const read = await readAllPages('describeHosting', endless, { pageSize: 2, maxPages: 5 }, logger(warnings));
    expect(requested).toEqual([1, 2, 3, 4, 5]);
    expect(read).toHaveLength(10);
    expect(warnings).toEqual([{ operation: 'describeHosting', pages: 5, rows: 10 }]);
  });

  it('propagates a failing page', async () => {
    const failing = async (pageNum: number): Promise<PageAnswer<number>> => {
      if (pageNum === 2) throw new Error('boom');
      return { rows: [1, 2], total: 10 };
    };
    await expect(readAllPages('listDomains', failing, { pageSize: 2, maxPages: 10 }, logger([]))).rejects.toThrow('boom');
  });
});
