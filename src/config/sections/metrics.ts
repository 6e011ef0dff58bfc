// `metrics:` — which metric families exist at all. A denied family is dropped
// before collection: it costs no upstream request and no memory.
import { z } from 'zod';
import { metricPatternList } from '../patterns.js';

export const metricsSchema = z.strictObject({
  allow: metricPatternList()
    .default([])
    .describe(
      'Metric families to collect: globs such as `edge_topn_*`, or regexes between slashes matched against the whole name ' +
        '(default [] = all).',
    ),
  deny: metricPatternList()
    .default([])
    .describe('Metric families never collected, same syntax; deny wins over allow (default []).'),
});
