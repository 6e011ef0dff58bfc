// Running a target's requests: the main request and the back-fill chunks.
// Chunks go one after another, oldest first, with progress in the log, and
// stop at the first failure: a later chunk could not be counted anyway (the
// watermark only moves over contiguous buckets) and is asked again next cycle.
import type { PlatformClock } from '../../api/index.js';
import type { CollectorLogger } from '../types.js';
import type { Piece } from './count.js';
import type { Grid } from './options.js';
import { asError, type Tally } from './output.js';
import { spanOf, type BucketRange, type RequestWindow, type TimeSpan } from './window.js';

export interface Fetched<R> extends Tally {
  /** Back-fill chunks (as far as they got) and the main request, for countTarget. */
  readonly pieces: readonly Piece<R>[];
  /** The main response, for the gauges; undefined when it failed or was not needed. */
  readonly main: R | undefined;
}

export interface FetchInput<R> {
  readonly window: RequestWindow;
  /** False when nothing needs the main request this cycle (no gauges, no buckets to count). */
  readonly needMain: boolean;
  readonly grid: Grid;
  readonly tz: PlatformClock;
  /** Logger bound to the collector and target. */
  readonly log: CollectorLogger;
  send(span: TimeSpan, kind: 'main' | 'backfill'): Promise<R>;
}

export async function fetchWindow<R>(input: FetchInput<R>): Promise<Fetched<R>> {
  const mainRange: BucketRange = input.window.main;
  const [chunks, main] = await Promise.all([
    fetchChunks(input.window.backfill, input),
    input.needMain ? tryRequest(() => input.send(input.window.main, 'main')) : Promise.resolve(undefined),
  ]);
  const errors = [...chunks.errors, ...(main?.error ? [main.error] : [])];
  const mainSpan: TimeSpan = { begin: input.window.main.begin, end: input.window.main.end };
  const pieces = [...chunks.pieces, ...(main ? [{ range: mainRange, span: mainSpan, response: main.response }] : [])];
  return { pieces, main: main?.response, requests: chunks.requests + (main ? 1 : 0), errors };
}

/** Sequential chunk requests with progress logging; also used on its own by collectors without a main request. */
export async function fetchChunks<R>(
  chunks: readonly BucketRange[],
  input: Pick<FetchInput<R>, 'grid' | 'tz' | 'log' | 'send'> & {
    /** Progress at debug instead of info: a routine one-chunk catch-up is not a back-fill worth reporting. */
    readonly quiet?: boolean;
    /** The last chunk's request ends here (now) instead of at its last bucket's end: its answer then shows the upstream's clock. */
    readonly lastEnd?: number;
  },
): Promise<{ pieces: Piece<R>[]; requests: number; errors: Error[] }> {
  const pieces: Piece<R>[] = [];
  const errors: Error[] = [];
  for (const [i, range] of chunks.entries()) {
    const exact = spanOf(range, input.grid);
    const span = i === chunks.length - 1 && input.lastEnd !== undefined && input.lastEnd > exact.end ? { ...exact, end: input.lastEnd } : exact;
    const from = input.tz.formatDateTime(span.begin);
    const to = input.tz.formatDateTime(span.end);
    const result = await tryRequest(() => input.send(span, 'backfill'));
    if (result.error) {
      input.log.warn({ err: result.error, from, to, chunk: i + 1, of: chunks.length }, 'back-fill chunk failed; retrying from it next cycle');
      errors.push(result.error);
      break;
    }
    pieces.push({ range, span, response: result.response });
    const progress = { from, to, chunk: i + 1, of: chunks.length };
    if (input.quiet) input.log.debug(progress, 'back-filled');
    else input.log.info(progress, 'back-filled');
  }
  return { pieces, requests: pieces.length + errors.length, errors };
}

async function tryRequest<R>(call: () => Promise<R>): Promise<{ response: R | undefined; error: Error | undefined }> {
  try {
    return { response: await call(), error: undefined };
  } catch (err) {
    return { response: undefined, error: asError(err) };
  }
}
