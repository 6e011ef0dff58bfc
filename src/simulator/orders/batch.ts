// The shape shared by create, update and modify: a batch of items, each
// answered with its own result code, in request order. Items run one after
// another, so a later item sees what an earlier one wrote (two overlapping
// creates in one batch: the second gets code 6).
import type { Handler } from '../types.js';
import { fail, ok } from '../types.js';
import type { Item, ItemSpec } from './fields.js';
import { readItems } from './fields.js';

type ItemRunner = (item: Item, now: number) => Record<string, unknown>;

export function batchHandler(spec: ItemSpec, run: ItemRunner): Handler {
  return (req) => {
    const items = readItems(req.body, spec);
    if (typeof items === 'string') return fail(400, 400, items);
    return ok({ data: items.map((item) => run(item, req.now)) });
  };
}
