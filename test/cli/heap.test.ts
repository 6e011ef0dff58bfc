import { describe, expect, it } from 'vitest';
import { limitHeapGrowth } from '../../src/cli/heap.js';

describe('the daemon heap setting', () => {
  it('leaves a --heap-growing-percent from node\'s command line alone', () => {
    expect(limitHeapGrowth(['--heap-growing-percent=50'])).toBe(false);
    expect(limitHeapGrowth(['--inspect', '--heap_growing_percent=10'])).toBe(false);
  });

  it('sets its own otherwise', () => {
    expect(limitHeapGrowth(['--enable-source-maps'])).toBe(true);
  });
});
