// What /metrics serves: each data family rendered once per change and cached (plain and deflated), plus the self-metrics.
import { crc32 } from 'node:zlib';
import { deflateOpen, gzipWithTail, type DeflatedPrefix } from './gzip.js';
import {
  CONTENT_TYPES,
  OPENMETRICS_EOF,
  compareStrings,
  serializeFamily,
  type SampleHeads,
  type ExpositionFormat,
  type FamilyDef,
  type FamilySnapshot,
} from './serialize.js';

export { negotiate } from './negotiate.js';

/** The published families (the FamilyStore). */
export interface SnapshotSource {
  /** Changes whenever the snapshot does. */
  readonly generation: number;
  /** A family's `series` array must be replaced, never mutated, when it changes. */
  snapshot(): readonly FamilySnapshot[];
}

/** The self-metrics (SelfMetrics): rendered per scrape, OpenMetrics without `# EOF`. */
export interface SelfSource {
  render(format: ExpositionFormat): Promise<string>;
}

interface ExpositionOptions {
  readonly families: SnapshotSource;
  readonly self: SelfSource;
}

interface Rendered {
  /** The whole response body (concatenated on first access). */
  readonly body: Buffer;
  /** The same bytes in pieces, for writing without the copy `body` makes. */
  readonly chunks: readonly Buffer[];
  readonly byteLength: number;
  readonly contentType: string;
}

interface FamilyChunk {
  readonly series: FamilySnapshot['series'];
  readonly text: Buffer;
  /** Kept for the next rendering of the family, which usually has the same labels. */
  readonly heads: SampleHeads | undefined;
  deflated: Buffer | undefined;
}

interface CachedData {
  readonly generation: number;
  /** Non-empty families in name order; kept apart so a change costs no copy of the others. */
  readonly families: readonly FamilyChunk[];
  gzip: DeflatedPrefix | undefined;
}

/**
 * Nothing here calls the upstream. Each family is rendered (and, on the first
 * gzip request, deflated) once per change of its series, so a publish by one
 * collector re-renders only that collector's families; a scrape of unchanged
 * data renders only the self-metrics. Those are rendered on every scrape:
 * they include process metrics that change continuously, and the exporter's
 * own families change with every upstream request; rendering them all takes
 * well under a millisecond, so a cache would save little and serve stale values.
 */
export class Exposition {
  private readonly source: SnapshotSource;
  private readonly self: SelfSource;
  private readonly data = new Map<ExpositionFormat, CachedData>();
  private readonly chunks: Record<ExpositionFormat, WeakMap<FamilyDef, FamilyChunk>> = { text: new WeakMap(), openmetrics: new WeakMap() };

  constructor(options: ExpositionOptions) {
    this.source = options.families;
    this.self = options.self;
  }

  async render(format: ExpositionFormat): Promise<Rendered> {
    const data = this.current(format);
    const tail = await this.tail(format);
    return rendered([...data.families.map((f) => f.text), tail], CONTENT_TYPES[format]);
  }

  /** The same bytes as `render(format)`, gzip-encoded as one gzip member. */
  async renderGzip(format: ExpositionFormat): Promise<Rendered> {
    const data = this.current(format);
    const tail = await this.tail(format);
    data.gzip ??= {
      parts: data.families.map((chunk) => (chunk.deflated ??= deflateOpen(chunk.text))),
      crc: data.families.reduce((crc, chunk) => crc32(chunk.text, crc), 0),
      length: data.families.reduce((length, chunk) => length + chunk.text.length, 0),
    };
    return rendered(gzipWithTail(data.gzip, tail), CONTENT_TYPES[format]);
  }

  /** Taken synchronously, before any await, so one response never mixes two generations. */
  private current(format: ExpositionFormat): CachedData {
    const generation = this.source.generation;
    const cached = this.data.get(format);
    if (cached?.generation === generation) return cached;
    // serialize() sorts by family name; a family's chunk does not depend on its neighbours.
    const families = [...this.source.snapshot()]
      .filter((family) => family.series.length > 0)
      .sort((a, b) => compareStrings(a.def.name, b.def.name))
      .map((family) => this.chunk(format, family));
    const fresh: CachedData = { generation, families, gzip: undefined };
    this.data.set(format, fresh);
    return fresh;
  }

  private chunk(format: ExpositionFormat, family: FamilySnapshot): FamilyChunk {
    const cache = this.chunks[format];
    const cached = cache.get(family.def);
    if (cached?.series === family.series) return cached;
    const { text, heads } = serializeFamily(family, format, cached?.heads);
    const fresh: FamilyChunk = { series: family.series, text, heads, deflated: undefined };
    cache.set(family.def, fresh);
    return fresh;
  }

  /** Self-metrics, then for OpenMetrics the one `# EOF` that ends the whole exposition. */
  private async tail(format: ExpositionFormat): Promise<Buffer> {
    const self = await this.self.render(format);
    return Buffer.from(format === 'openmetrics' ? self + OPENMETRICS_EOF : self, 'utf8');
  }
}

function rendered(chunks: readonly Buffer[], contentType: string): Rendered {
  let body: Buffer | undefined;
  return {
    chunks,
    contentType,
    byteLength: chunks.reduce((sum, chunk) => sum + chunk.length, 0),
    get body() {
      return (body ??= Buffer.concat(chunks));
    },
  };
}
