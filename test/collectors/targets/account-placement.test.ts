// Named accounts under sharding: each account's targets spread over the
// replicas with the account and the target together (two accounts' targets
// of one name are placed independently), every target on exactly one
// replica; each account's account-wide collectors on exactly one replica,
// and the accounts spread over the replicas rather than all on shard 0. An
// unnamed account keeps the owners it always had.
import { describe, expect, it } from 'vitest';
import { holdsAccount } from '../../../src/collectors/targets/placement.js';
import { ownedBy, shardOf } from '../../../src/collectors/targets/shard.js';

const COUNT = 3;
const names = Array.from({ length: 300 }, (_, i) => `www.site-${String(i).padStart(3, '0')}.example.com`);
const shards = (account?: string) => Array.from({ length: COUNT }, (_, index) => ({ index, count: COUNT, ...(account === undefined ? {} : { account }) }));

describe('placement of named accounts', () => {
  it('places every target of an account on exactly one replica', () => {
    for (const account of ['eu', 'us']) {
      const owners = names.map((name) => shards(account).filter((s) => ownedBy(s)(name)).length);
      expect(owners).toEqual(names.map(() => 1));
    }
  });

  it('places two accounts\' targets of one name independently', () => {
    const ownerIn = (account: string, name: string) => shards(account).findIndex((s) => ownedBy(s)(name));
    const apart = names.filter((name) => ownerIn('eu', name) !== ownerIn('us', name));
    // Independent placements over 3 replicas differ for about two thirds of the names.
    expect(apart.length).toBeGreaterThan(names.length / 2);
    expect(apart.length).toBeLessThan(names.length);
  });

  it('keeps the owners of an account that is not named', () => {
    for (const name of names) expect(shards().findIndex((s) => ownedBy(s)(name))).toBe(shardOf(name, COUNT));
    expect(shards().map(holdsAccount)).toEqual([true, false, false]);
  });

  it('runs each named account\'s account-wide collectors on one replica, the accounts spread over all of them', () => {
    const accounts = Array.from({ length: 30 }, (_, i) => `account-${i}`);
    const holders = accounts.map((account) => shards(account).filter(holdsAccount).map((s) => s.index));
    for (const held of holders) expect(held).toHaveLength(1);
    expect(new Set(holders.flat())).toEqual(new Set([0, 1, 2]));
  });
});
