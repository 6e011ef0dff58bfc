// The two pipes a history is kept for. Remote-write's files keep the names
// they had before OTLP metrics existed (`history` in each ledger file,
// remote-write-acks.json), so a state directory from an older version is read
// as it was written.
import type { HistoryPipe } from './queues.js';
import { pointSampler, remoteWriteSampler, type Temporality } from './samples.js';

export const REMOTE_WRITE_PIPE: HistoryPipe = {
  name: 'remote-write',
  acksFile: 'remote-write-acks',
  member: 'history',
  stride: 3,
  sampler: remoteWriteSampler,
};

/**
 * OTLP metrics' pipe: points with a start, in `temporality`, which each page
 * keeps: a page made before the temporality changed (a reload, a restart) is
 * sent as what its points are.
 */
export function otlpMetricsPipe(temporality: Temporality): HistoryPipe {
  return { name: 'OTLP metrics', acksFile: 'otlp-metrics-acks', member: 'otlpHistory', stride: 4, sampler: pointSampler(temporality), tag: temporality };
}
