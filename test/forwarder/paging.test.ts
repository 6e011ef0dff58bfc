// Reading a window page by page (fetch.ts readWindow) against the simulator,
// through the daemon's client: every record of the window once, whatever the
// page size, and also from an upstream that caps pageSize below what is asked
// (the document gives no maximum and `logs` no total, so such an upstream
// answers every page short and pages in its own size). The cap is the
// simulator's own paging with the request's pageSize lowered on the way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EdgeClient, platformClock, type DescribeLogV2Request } from '../../src/api/index.js';
import { readWindow, type PageReader } from '../../src/forwarder/fetch.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { DENY, MIN, T0 } from './fakes.js';

const tz = platformClock('+08:00');
const TOKEN = 'paging-token';
// Ends before the simulator's ingest lag (up to 90 s): every record of it is visible.
const WINDOW = { startMs: T0 - 35 * MIN, endMs: T0 - 5 * MIN };

describe('readWindow', () => {
  let sim: Simulator;
  let client: EdgeClient;
  const signal = new AbortController().signal;

  beforeAll(async () => {
    sim = createSimulator({ seed: 11, domains: 4, tokens: [{ token: TOKEN, permissions: '*' }], clock: { mode: 'fixed', start: T0 } });
    const { url } = await sim.listen('127.0.0.1', 0);
    client = new EdgeClient({ apiUrl: url, token: TOKEN, retry: { attempts: 1 }, timeoutMs: 5000 });
  });

  afterAll(async () => {
    await client?.close();
    await sim?.close();
  });

  /** The window's deny requestIds by the simulator's truth. */
  const truth = (): string[] => sim.truth.wafEvents(WINDOW.startMs, WINDOW.endMs)
    .filter((e) => e.record.response.httpCode === DENY).map((e) => e.record.requestId).sort();

  /** Reads the window; `cap` lowers every request's pageSize to it, as an upstream with that maximum would. */
  async function read(pageSize: number, cap?: number): Promise<{ ids: string[]; pages: number[]; requests: number }> {
    let requests = 0;
    const capped: PageReader['client'] = {
      describeLogV2: (request: DescribeLogV2Request, options) => {
        requests += 1;
        const action = request.action.map((a) => (cap === undefined ? a : { ...a, pageSize: Math.min(a.pageSize ?? 10, cap) }));
        return client.describeLogV2({ ...request, action }, options);
      },
    };
    const ids: string[] = [];
    const pages: number[] = [];
    const lasts: boolean[] = [];
    for await (const page of readWindow({ client: capped, tz, query: { pageSize }, signal }, WINDOW)) {
      pages.push(page.records.length);
      lasts.push(page.last);
      ids.push(...page.records.map((r) => r.requestId));
      // Emptied, as the drain empties each page it reads (drain.ts): the paging must count a page before it hands it over.
      page.records.length = 0;
    }
    // Only the page after which nothing more is asked says it is the last.
    expect(lasts).toEqual(pages.map((_, i) => i === pages.length - 1));
    return { ids: ids.sort(), pages, requests };
  }

  it('the window holds several pages of 10 and fits in one of 1000 (what the cases below rely on)', () => {
    expect(truth().length).toBeGreaterThan(25);
    expect(truth().length).toBeLessThan(1000);
  });

  it.each([10, 7, 1000])('reads every record once with pages of %i, ending at the first page shorter than a full one', async (size) => {
    const { ids, pages } = await read(size);
    expect(ids).toEqual(truth());
    const full = Math.min(size, pages[0] ?? 0);
    // Every page but the last is full; a first page shorter than asked is followed by one (empty) more.
    expect(pages.slice(0, -1).every((n) => n === full)).toBe(true);
    expect(pages.at(-1)).toBeLessThan(full === size ? size : 1);
  });

  it.each([[1000, 10], [100, 7], [25, 24]])('asking %i from an upstream that answers at most %i per page still reads every record once', async (size, cap) => {
    const { ids, pages, requests } = await read(size, cap);
    expect(ids).toEqual(truth());
    expect(pages.slice(0, -1).every((n) => n === cap)).toBe(true);
    expect(requests).toBe(Math.floor(truth().length / cap) + 1);
  });
});
