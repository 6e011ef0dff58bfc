// The handler table for operations 1-16, built over one world. The
// live-acceleration order operations (17-21) live in ../orders and are merged
// in by the simulator.
import type { HandlerTable } from '../types.js';
import type { SimContext } from '../context.js';
import { accessHandlers } from './access.js';
import { inventoryHandlers } from './inventory.js';
import { mostHandlers } from './most.js';
import { usageHandlers } from './usage.js';
import { wafHandlers } from './waf.js';
import { writeHandlers } from './writes.js';

export function platformHandlers(ctx: SimContext): HandlerTable {
  return {
    ...wafHandlers(ctx),
    ...writeHandlers(ctx),
    ...inventoryHandlers(ctx),
    ...usageHandlers(ctx),
    ...accessHandlers(ctx),
    ...mostHandlers(ctx),
  };
}
