// Layer-4 forwarding packages and their rules. A package's ruleCnt and
// consumptionPort are not stored: both are derived from `rules` (one forwarding
// port per rule), so insertRule/updateRule keep them consistent by construction.
import { hash32, Rng } from './rng.js';
import { DAY_MS } from '../api/time.js';


/** Layer-4 package activate codes: 0 pending payment, -1 unsubscribed, 1 in use, 3 closed, 4 configuring. */
export type L4Activate = 0 | -1 | 1 | 3 | 4;

export interface L4Rule {
  readonly ruleId: number;
  hyPort: string;
  listenPort: string;
  node: string;
  originAddress: string;
  protocolType: 'tcp' | 'udp';
  proxyProtocol: 'off' | 'on';
  types: 'off' | 'on';
  /** '' as in the document's sample when no limit is set. */
  limitConn: number | '';
  remark: string;
}

export interface L4Package {
  readonly oid: string;
  readonly alias: string;
  readonly packageName: string;
  readonly remark: string;
  readonly cname: string;
  readonly fdesc: string;
  /** Mbps, a field present only in the document's sample. */
  readonly bandwidth: number;
  readonly isTest: 0 | 1;
  readonly activate: L4Activate;
  /** Epoch seconds. */
  readonly ctime: number;
  /** Epoch seconds; bumped by rule writes. */
  utime: number;
  /** Expiry (epoch ms), null for packages without one. */
  readonly mday: number | null;
  /** [address, identifier] pairs. */
  readonly nodes: ReadonlyArray<readonly [string, string]>;
  readonly totalPort: number;
  readonly rules: L4Rule[];
}

/** Every documented activate code appears at least once, in this order. */
const STATES: readonly L4Activate[] = [1, 1, 4, 0, -1, 3, 1];
/**
 * The package (in use) that expires soon: 3-10 days after the world is built,
 * under the 14-day expiry alert, so the demo's expiry panels and that alert
 * have something to show.
 */
const NEAR_EXPIRY = 6;

export function buildL4Packages(seed: number, now: number): L4Package[] {
  const rng = new Rng(hash32(seed, 'l4'));
  const oidBase = 40_000_000 + (hash32(seed, 'l4-oid') % 1_000_000) * 10;
  let ruleId = 500_000 + (hash32(seed, 'l4-rule') % 100_000) * 10;
  return STATES.map((activate, k) => {
    const oid = `L4${oidBase + k}`;
    const nodes = Array.from({ length: rng.int(2, 3) }, (_, n) =>
      [`203.0.113.${rng.int(2, 250)}`, `l4-node-${k + 1}-${n + 1}`] as const);
    const totalPort = rng.int(8, 30);
    const ruleCount = activate === 1 || activate === 4 ? rng.int(1, Math.min(6, totalPort)) : rng.int(0, 1);
    const ctime = Math.floor(now / 1000) - rng.int(20, 400) * 86_400;
    // Unpaid and unsubscribed packages carry no expiry; closed ones expired in the past.
    // The near one reuses its draw (3 + days % 8), so every later draw, and the world, stays as it was.
    const days = activate === 0 || activate === -1 ? 0 : activate === 3 ? -rng.int(2, 60) : rng.int(3, 365);
    const mday = activate === 0 || activate === -1 ? null : now + (k === NEAR_EXPIRY ? 3 + (days % 8) : days) * DAY_MS;
    const rules = Array.from({ length: ruleCount }, (_, r) => {
      ruleId += 1;
      return makeRule(rng, ruleId, String(10_000 + k * 100 + r), nodes);
    });
    return {
      oid,
      alias: `l4-pkg-${String(k + 1).padStart(2, '0')}`,
      packageName: `四层转发套餐 ${k + 1}`,
      remark: k % 3 === 0 ? '游戏服' : '',
      cname: `${oid.toLowerCase()}.l4.edge-sim.example.net`,
      fdesc: `${totalPort} 个转发端口`,
      bandwidth: rng.pick([50, 100, 200, 500]),
      isTest: k === 2 || k === 5 ? 0 : 1,
      activate,
      ctime,
      utime: ctime + rng.int(0, 10) * 86_400,
      mday: mday === null ? null : Math.floor(mday / 1000) * 1000,
      nodes,
      totalPort,
      rules,
    };
  });
}

function makeRule(rng: Rng, ruleId: number, hyPort: string, nodes: ReadonlyArray<readonly [string, string]>): L4Rule {
  const origins = Array.from({ length: rng.int(1, 2) }, () => `198.51.100.${rng.int(2, 250)}`);
  return {
    ruleId,
    hyPort,
    listenPort: String(rng.pick([22, 80, 443, 3306, 7000, 25565])),
    node: nodes[rng.int(0, nodes.length - 1)]?.[1] ?? '',
    originAddress: origins.join(';'),
    protocolType: rng.chance(0.8) ? 'tcp' : 'udp',
    proxyProtocol: rng.chance(0.3) ? 'on' : 'off',
    types: rng.chance(0.5) ? 'on' : 'off',
    limitConn: rng.chance(0.5) ? rng.int(100, 5000) : '',
    remark: rng.chance(0.3) ? '业务端口' : '',
  };
}

/** lastday: whole days from `now` until expiry, rounded up (negative once expired). */
export function daysToExpiry(mday: number | null, now: number): number | null {
  return mday === null ? null : Math.ceil((mday - now) / DAY_MS);
}
