// The read client: its type has no write operation (so no collector, no
// forwarder and no doctor can name one), and the object the daemon hands out
// has no write method at all (so a cast finds nothing to call).
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { MockAgent } from 'undici';
import {
  EdgeClient, OPERATIONS, OPERATION_NAMES, readClient, type OperationName, type ReadClient, type ReadOperationName,
} from '../../src/api/index.js';
import type { CollectContext } from '../../src/collectors/collector.js';
import type { DiscoveryClient } from '../../src/collectors/index.js';
import type { runDoctor } from '../../src/doctor/index.js';
import type { WafEventForwarderOptions } from '../../src/forwarder/options.js';
import type { Upstream } from '../../src/daemon/wiring/upstream.js';
import { OK } from './requests.js';

const WRITES = [
  'batchUpdateDomainCertInfo', 'insertRule', 'updateRule', 'pushUrlsCache',
  'createHostAcceleratePackOrder', 'updateHostAcceleratePackOrder', 'modifyHostAcceleratePackOrder',
] as const;

describe('the type', () => {
  it('derives the reads from the operations table: every operation not marked write', () => {
    expectTypeOf<Exclude<OperationName, ReadOperationName>>().toEqualTypeOf<(typeof WRITES)[number]>();
    expect(OPERATION_NAMES.filter((n) => OPERATIONS[n].write)).toEqual(WRITES);
  });

  it('has a method per read operation and none that writes', () => {
    expectTypeOf<keyof ReadClient>().toEqualTypeOf<ReadOperationName>();
    expectTypeOf<ReadClient>().not.toHaveProperty('insertRule');
    expectTypeOf<ReadClient>().not.toHaveProperty('createHostAcceleratePackOrder');
    expectTypeOf<ReadClient>().not.toHaveProperty('call');
  });

  it('is what collectors, the forwarder, discovery, the doctor and the daemon\'s wiring get', () => {
    const collector = {} as CollectContext['client'];
    const forwarder = {} as WafEventForwarderOptions['client'];
    const discovery = {} as DiscoveryClient;
    const doctor = {} as Parameters<typeof runDoctor>[0]['client'];
    const wired = {} as Upstream['client'];
    const rule = { packageId: 'p', rules: [] } as never;
    const use = (..._: unknown[]): void => undefined;
    // Never called: the lines below only have to fail to compile.
    use(() => {
      // @ts-expect-error a collector's client has no write operation
      void collector.insertRule(rule);
      // @ts-expect-error nor the WAF forwarder's
      void forwarder.insertRule(rule);
      // @ts-expect-error nor target discovery's
      void discovery.insertRule(rule);
      // @ts-expect-error nor the doctor's
      void doctor.insertRule(rule);
      // @ts-expect-error nor what the daemon's wiring hands out
      void wired.createHostAcceleratePackOrder(rule);
    });
    expectTypeOf(doctor).toEqualTypeOf<ReadClient>();
    expectTypeOf(collector).toEqualTypeOf<ReadClient>();
  });
});

describe('readClient', () => {
  let agent: MockAgent;
  let edge: EdgeClient;
  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    edge = new EdgeClient({ apiUrl: 'http://api.test', token: 'tok-123456', dispatcher: agent, retry: { attempts: 1 } });
  });
  afterEach(async () => {
    await edge.close();
    await agent.close();
  });

  it('holds the read methods alone, frozen: a cast reaches no write', () => {
    const reader = readClient(edge);
    expect(Object.keys(reader).sort()).toEqual(OPERATION_NAMES.filter((n) => !OPERATIONS[n].write).sort());
    for (const write of WRITES) expect((reader as unknown as Record<string, unknown>)[write]).toBeUndefined();
    expect((reader as unknown as Record<string, unknown>).call).toBeUndefined();
    expect(Object.isFrozen(reader)).toBe(true);
    expect(() => Object.assign(reader, { insertRule: edge.insertRule })).toThrow(TypeError);
  });

  it('sends through the client it was made from', async () => {
    agent.get('http://api.test').intercept({ path: OPERATIONS.getPackages.path, method: 'GET' }).reply(200, { ...OK, data: [{ label: 'p', value: '1' }] });
    await expect(readClient(edge).getPackages({})).resolves.toMatchObject({ data: [{ label: 'p', value: '1' }] });
    agent.assertNoPendingInterceptors();
  });
});
