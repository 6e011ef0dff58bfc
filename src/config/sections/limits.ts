// `limits:` — how big the exported series may grow, so one upstream answer
// with unbounded names (top-N keys, user agents) cannot exhaust memory.
import { z } from 'zod';
import { integer } from '../fields.js';

export const limitsSchema = z.strictObject({
  label_value_length: integer()
    .min(1)
    .default(128)
    .describe('Longest label value in characters; longer values are cut (default 128).'),
  series_per_family: integer()
    .min(1)
    .default(10_000)
    .describe('Most series one metric family may hold; further series are dropped and counted (default 10000).'),
});
