import { describe, expect, it } from 'vitest';
import { composeBatch } from '../../../src/exporters/push/batch.js';
import { encodeBody } from '../../../src/exporters/remote-write/encode.js';
import { type HistoryPage } from '../../../src/exporters/push/source.js';
import { decodeBody, labelsOf, sample, samples } from './support.js';

function page(owner: string, seq: number, createdMs: number, pageSamples: HistoryPage['samples']): HistoryPage {
  return { owner, seq, createdMs, samples: pageSamples };
}

describe('encodeBody', () => {
  it('makes a snappy-block WriteRequest whose series carry the names, sorted labels, external labels, times and values', () => {
    const big = 1_764_000_000_000; // 2025, far beyond 2^31 ms
    const pages = [
      page('cdn', 3, 10, [
        sample('edge_requests_total', { zone: 'b.example', status: '2xx' }, big + 60_000, 42),
        sample('edge_bytes_total', { zone: 'b.example', job: 'own-job' }, big + 60_000, 1.5),
      ]),
      page('waf', 1, 20, [sample('edge_waf_denied_requests_total', { zone: 'a.example', __name__: 'ignored' }, big, 7)]),
    ];
    const series = decodeBody(encodeBody(pages, { job: 'edge-exporter', region: 'eu' }));
    expect(series).toEqual([
      {
        labels: [
          { name: '__name__', value: 'edge_requests_total' },
          { name: 'job', value: 'edge-exporter' },
          { name: 'region', value: 'eu' },
          { name: 'status', value: '2xx' },
          { name: 'zone', value: 'b.example' },
        ],
        samples: [{ value: 42, timestamp: big + 60_000 }],
      },
      {
        // The series' own job wins over the external one.
        labels: [
          { name: '__name__', value: 'edge_bytes_total' },
          { name: 'job', value: 'own-job' },
          { name: 'region', value: 'eu' },
          { name: 'zone', value: 'b.example' },
        ],
        samples: [{ value: 1.5, timestamp: big + 60_000 }],
      },
      {
        labels: [
          { name: '__name__', value: 'edge_waf_denied_requests_total' },
          { name: 'job', value: 'edge-exporter' },
          { name: 'region', value: 'eu' },
          { name: 'zone', value: 'a.example' },
        ],
        samples: [{ value: 7, timestamp: big }],
      },
    ]);
  });

  it('keeps int64 timestamps exact up to 2^53 and values as doubles', () => {
    const far = 2 ** 53 - 1;
    const series = decodeBody(encodeBody([page('a', 1, 0, [sample('m', {}, far, -0.25), sample('n', {}, 2 ** 31 + 1, 1e300)])]));
    expect(series.map((s) => [labelsOf(s), s.samples])).toEqual([
      [{ __name__: 'm' }, [{ value: -0.25, timestamp: far }]],
      [{ __name__: 'n' }, [{ value: 1e300, timestamp: 2 ** 31 + 1 }]],
    ]);
  });

  it('sorts label names by byte order, upper case before `_` before lower case, `__name__` first', () => {
    const [series] = decodeBody(encodeBody([page('a', 1, 0, [sample('m', { b: '1', B: '2', _x: '3', a: '4' }, 1, 1)])], { Z: 'z' }));
    expect(series?.labels.map((l) => l.name)).toEqual(['B', 'Z', '__name__', '_x', 'a', 'b']);
  });

  it('makes one TimeSeries per series with its samples in time order when pages share it', () => {
    // Pages of one owner in one request do not happen in the sender; the encoder still groups and orders.
    const pages = [page('a', 2, 0, [sample('m', { z: '1' }, 2_000, 2)]), page('a', 1, 0, [sample('m', { z: '1' }, 1_000, 1)])];
    const series = decodeBody(encodeBody(pages, { job: 'j' }));
    expect(series).toEqual([
      {
        labels: [
          { name: '__name__', value: 'm' },
          { name: 'job', value: 'j' },
          { name: 'z', value: '1' },
        ],
        samples: [
          { value: 1, timestamp: 1_000 },
          { value: 2, timestamp: 2_000 },
        ],
      },
    ]);
  });

  it('cuts label values as /metrics does (limits.label_value_length): the marker included, lone surrogates replaced', () => {
    const pages = [page('topn', 1, 0, [sample('edge_top_url_requests', { key: `/${'x'.repeat(200)}`, bad: 'a\uD800b' }, 1, 1)])];
    const [series] = decodeBody(encodeBody(pages, { job: 'j' }, 10));
    expect(labelsOf(series!)).toEqual({ __name__: 'edge_top_url_requests', bad: 'a\uFFFDb', job: 'j', key: '/xxxxxxxx…' });
  });

  it('encodes an empty request as no series', () => {
    expect(decodeBody(encodeBody([]))).toEqual([]);
  });
});

describe('composeBatch', () => {
  const heads = [page('c', 5, 300, samples('c', 3, 0)), page('a', 9, 100, samples('a', 4, 0)), page('b', 2, 200, samples('b', 5, 0))];

  it('takes heads oldest first while the total fits, and says a left-out head makes it full', () => {
    const batch = composeBatch(heads, 10, 1_000, 150);
    expect(batch?.pages.map((p) => `${p.owner}#${p.seq}`)).toEqual(['a#9', 'b#2']);
    expect(batch?.samples).toBe(9);
    expect(batch?.full).toBe(true);
    expect(batch?.dueInMs).toBe(950);
  });

  it('takes everything when it fits; not full below the maximum, due at the oldest page deadline', () => {
    const batch = composeBatch(heads, 100, 1_000, 1_050);
    expect(batch?.pages.map((p) => p.owner)).toEqual(['a', 'b', 'c']);
    expect(batch?.samples).toBe(12);
    expect(batch?.full).toBe(false);
    expect(batch?.dueInMs).toBe(50);
  });

  it('is full at exactly the maximum', () => {
    expect(composeBatch(heads, 12, 1_000, 0)?.full).toBe(true);
  });

  it('always takes the oldest page, even larger than the maximum', () => {
    const batch = composeBatch(heads, 2, 1_000, 0);
    expect(batch?.pages.map((p) => p.owner)).toEqual(['a']);
    expect(batch?.samples).toBe(4);
    expect(batch?.full).toBe(true);
  });

  it('breaks a createdMs tie by owner then seq, and returns undefined without heads', () => {
    const tied = [page('b', 1, 5, samples('b', 1, 0)), page('a', 1, 5, samples('a', 1, 0))];
    expect(composeBatch(tied, 10, 0, 0)?.pages.map((p) => p.owner)).toEqual(['a', 'b']);
    expect(composeBatch([], 10, 0, 0)).toBeUndefined();
  });
});
