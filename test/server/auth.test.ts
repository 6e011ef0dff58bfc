// Basic auth as the server checks it: plain passwords, bcrypt hashes as
// htpasswd writes them (real bcrypt), and the cache that spares a scraper one
// bcrypt per scrape (a counting bcrypt stand-in says when bcrypt ran).
import { describe, expect, it } from 'vitest';
import { BasicAuthVerifier, type BasicAuthCredentials, type BcryptCompare } from '../../src/server/auth.js';
import { VerifiedCache } from '../../src/server/verified-cache.js';

/** exporter-toolkit's own decoy hash: "fakepassword" at cost 10, written by Go's bcrypt as $2y$. */
const HASH = '$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi';
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** A bcrypt stand-in: the "hash" is `hash:<password>`; counts its calls. */
function countingCompare(): BcryptCompare & { calls: string[] } {
  const calls: string[] = [];
  const compare = async (password: string, hash: string): Promise<boolean> => {
    calls.push(password);
    return hash === `hash:${password}`;
  };
  return Object.assign(compare, { calls });
}

describe('BasicAuthVerifier with real bcrypt', () => {
  const users: BasicAuthCredentials = { users: new Map([['prom', HASH]]) };

  it.each<[string, string | undefined, boolean]>([
    ['the right user and password', basic('prom', 'fakepassword'), true],
    ['a wrong password', basic('prom', 'fakepassword2'), false],
    ['an unknown user with the right password', basic('grafana', 'fakepassword'), false],
    ['no header', undefined, false],
    ['a bearer token', 'Bearer fakepassword', false],
    ['no colon', `Basic ${Buffer.from('promfakepassword').toString('base64')}`, false],
  ])('%s', async (_, header, ok) => {
    expect(await new BasicAuthVerifier().check(header, users)).toBe(ok);
  });

  it('checks a plain password as before', async () => {
    const verifier = new BasicAuthVerifier();
    expect(await verifier.check(basic('prom', 'pw-1'), { username: 'prom', password: 'pw-1' })).toBe(true);
    expect(await verifier.check(basic('prom', 'pw-2'), { username: 'prom', password: 'pw-1' })).toBe(false);
    expect(await verifier.check(basic('other', 'pw-1'), { username: 'prom', password: 'pw-1' })).toBe(false);
  });
});

describe('the verified cache', () => {
  const users: BasicAuthCredentials = { users: new Map([['prom', 'hash:right'], ['grafana', 'hash:other']]) };

  it('runs bcrypt once for a scraper that keeps sending the right password', async () => {
    const compare = countingCompare();
    const verifier = new BasicAuthVerifier(compare);
    for (let scrape = 0; scrape < 5; scrape++) expect(await verifier.check(basic('prom', 'right'), users)).toBe(true);
    expect(compare.calls).toEqual(['right']);
  });

  it('runs bcrypt for every wrong guess: failures are not cached', async () => {
    const compare = countingCompare();
    const verifier = new BasicAuthVerifier(compare);
    for (let guess = 0; guess < 3; guess++) expect(await verifier.check(basic('prom', 'wrong'), users)).toBe(false);
    expect(compare.calls).toEqual(['wrong', 'wrong', 'wrong']);
  });

  it('checks an unknown user against a configured hash all the same, and never lets it in', async () => {
    const compare = countingCompare();
    const verifier = new BasicAuthVerifier(compare);
    // "right" is prom's password: the decoy compare matches, the unknown user is still refused, twice (not cached).
    expect(await verifier.check(basic('mallory', 'right'), users)).toBe(false);
    expect(await verifier.check(basic('mallory', 'right'), users)).toBe(false);
    expect(compare.calls).toEqual(['right', 'right']);
  });

  it('keys on the hash too: a new hash after a reload is checked by bcrypt again, and the old password refused', async () => {
    const compare = countingCompare();
    const verifier = new BasicAuthVerifier(compare);
    expect(await verifier.check(basic('prom', 'right'), users)).toBe(true);
    const rotated: BasicAuthCredentials = { users: new Map([['prom', 'hash:rotated']]) };
    expect(await verifier.check(basic('prom', 'right'), rotated)).toBe(false);
    expect(await verifier.check(basic('prom', 'rotated'), rotated)).toBe(true);
    expect(compare.calls).toEqual(['right', 'right', 'rotated']);
  });

  it('runs one bcrypt at a time', async () => {
    let running = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const verifier = new BasicAuthVerifier(async (password, hash) => {
      most = Math.max(most, ++running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
      return hash === `hash:${password}`;
    });
    const checks = ['a', 'b', 'c'].map((p) => verifier.check(basic('prom', p), users));
    for (let turn = 0; turn < 3; turn++) {
      // Every queued step is a microtask, so one macrotask later the next compare has started, and only it.
      await new Promise((resolve) => setImmediate(resolve));
      expect([running, releases.length]).toEqual([1, 1]);
      releases.shift()?.();
    }
    expect(await Promise.all(checks)).toEqual([false, false, false]);
    expect(most).toBe(1);
  });
});

describe('VerifiedCache', () => {
  const key = (n: number): Buffer => Buffer.alloc(32, n);

  it('holds at most its capacity, dropping the oldest first; a hit refreshes nothing, a re-add does', () => {
    const cache = new VerifiedCache(2);
    cache.add(key(1));
    cache.add(key(2));
    cache.add(key(1)); // re-added: now the newest
    cache.add(key(3)); // drops 2, the oldest
    expect([1, 2, 3].map((n) => cache.has(key(n)))).toEqual([true, false, true]);
  });
});
