// Pages -> one remote-write 1.0 WriteRequest -> snappy block: the body of one POST.
import protobuf from 'protobufjs';
import { compressSync } from 'snappy';
import { capLabelValue, wellFormedLabelValue } from '../prometheus/naming.js';
import type { HistoryPage } from '../push/source.js';

/**
 * The subset of prometheus/prompb (types.proto, remote.proto) remote-write 1.0
 * needs, by reflection: protobufjs does the wire format, so no hand-written
 * encoder can get a tag or a varint wrong. Field numbers are the spec's.
 */
const PROMPB = protobuf.Root.fromJSON({
  nested: {
    prometheus: {
      nested: {
        WriteRequest: { fields: { timeseries: { rule: 'repeated', type: 'TimeSeries', id: 1 } } },
        TimeSeries: {
          fields: {
            labels: { rule: 'repeated', type: 'Label', id: 1 },
            samples: { rule: 'repeated', type: 'Sample', id: 2 },
          },
        },
        Label: { fields: { name: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
        Sample: { fields: { value: { type: 'double', id: 1 }, timestamp: { type: 'int64', id: 2 } } },
      },
    },
  },
});
const WRITE_REQUEST = PROMPB.lookupType('prometheus.WriteRequest');

interface Label {
  readonly name: string;
  readonly value: string;
}

/** A sample on the wire (prometheus.Sample): a value and its time, its series named by the TimeSeries around it. */
interface WireSample {
  readonly value: number;
  /** Epoch ms; int64 on the wire, exact as a JS number up to 2^53. */
  readonly timestamp: number;
}

interface TimeSeries {
  /** Sorted by name (`__name__` sorts first on its own: `_` is below every letter). */
  readonly labels: readonly Label[];
  /** In timestamp order. */
  readonly samples: readonly WireSample[];
}

/** Byte order of the names, as Prometheus' labels.Labels (names are ASCII, so UTF-16 order is byte order). */
function byName(a: Label, b: Label): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * One TimeSeries per distinct series of the pages: `__name__` from the
 * sample's name (a `__name__` among its labels is ignored: the name is the
 * one /metrics shows), then its labels, then every external label the series
 * does not carry itself (Prometheus' rule: the series' own label wins).
 */
function toTimeSeries(pages: readonly HistoryPage[], externalLabels: Readonly<Record<string, string>> = {}, maxLabelValueLength = Infinity): TimeSeries[] {
  // As /metrics writes them (limits.label_value_length), so a series pushed and scraped is one series.
  const asExposed = (value: string): string => capLabelValue(wellFormedLabelValue(value), maxLabelValueLength);
  const bySeries = new Map<string, { labels: Label[]; samples: WireSample[] }>();
  for (const page of pages) {
    for (const sample of page.samples) {
      const labels: Label[] = [{ name: '__name__', value: sample.name }];
      for (const [name, value] of Object.entries(sample.labels)) if (name !== '__name__') labels.push({ name, value: asExposed(value) });
      for (const [name, value] of Object.entries(externalLabels)) {
        if (name !== '__name__' && !Object.hasOwn(sample.labels, name)) labels.push({ name, value });
      }
      labels.sort(byName);
      // Names cannot hold \u0000, so this key tells series apart.
      const key = labels.map((l) => `${l.name}\u0000${l.value}`).join('\u0000');
      let series = bySeries.get(key);
      if (series === undefined) {
        series = { labels, samples: [] };
        bySeries.set(key, series);
      }
      series.samples.push({ value: sample.value, timestamp: sample.timestampMs });
    }
  }
  const out: TimeSeries[] = [];
  for (const series of bySeries.values()) {
    // A receiver refuses a series whose samples go back in time (out of order).
    series.samples.sort((a, b) => a.timestamp - b.timestamp);
    out.push(series);
  }
  return out;
}

/** The WriteRequest's protobuf bytes, uncompressed. */
function encodeWriteRequest(series: readonly TimeSeries[]): Uint8Array {
  return WRITE_REQUEST.encode(WRITE_REQUEST.fromObject({ timeseries: series })).finish();
}

/** The body of one remote-write 1.0 POST: the WriteRequest, snappy block format (not the framed format 1.0 forbids). */
export function encodeBody(pages: readonly HistoryPage[], externalLabels: Readonly<Record<string, string>> = {}, maxLabelValueLength = Infinity): Uint8Array {
  return compressSync(encodeWriteRequest(toTimeSeries(pages, externalLabels, maxLabelValueLength)));
}
