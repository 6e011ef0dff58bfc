// Client ↔ simulator contract for authentication, permissions and paths: a
// bad token is a 401 AuthError on every operation and is never retried; a
// token without permission labels is refused (403) exactly where the document
// names a label; `auth_scheme: raw` and the documented literal paths reach the
// same operations.
import { describe, expect, it } from 'vitest';
import {
  AuthError, NotFoundError, OPERATIONS, OPERATION_NAMES, PermissionError,
  type ClientObserver, type EdgeClient, type OperationName, type AnswerOf,
} from '../../src/api/index.js';
import { LIMITED_TOKEN, TOKEN, errorFields, rejection, useContract } from './harness.js';
import { validRequests, type ValidRequests } from './requests.js';

const ctx = useContract();

function send<K extends OperationName>(client: EdgeClient, op: K, requests: ValidRequests): Promise<AnswerOf<K>> {
  return client.call(op, requests[op]);
}

describe('a wrong token', () => {
  it.each(OPERATION_NAMES)('%s: AuthError (401), sent once, never retried', async (op) => {
    const retries: OperationName[] = [];
    const observer: ClientObserver = { onRetry: (e) => retries.push(e.operation) };
    const requests = validRequests(ctx.sim.world);
    const err = await rejection(send(ctx.clientWith({ token: 'wrong-token', observer }), op, requests));
    expect(err).toBeInstanceOf(AuthError);
    if (!(err instanceof AuthError)) return;
    expect(errorFields(err)).toEqual({ name: 'AuthError', code: 'EDGE_AUTH', operation: op, status: 401 });
    expect(err.upstreamCode).toBe(401);
    expect(ctx.sim.requestCounts()).toEqual({ [op]: 1 });
    expect(retries).toEqual([]);
    // The same request with the right token goes through: the 401 was the token's doing.
    await expect(send(ctx.client, op, requests)).resolves.toMatchObject({ code: 200 });
  });
});

describe('a token without permission labels', () => {
  const labelled = OPERATION_NAMES.filter((op) => OPERATIONS[op].permission !== undefined);

  it('the document labels exactly describeL7DataV2 and pushUrlsCache', () => {
    expect(labelled).toEqual(['describeL7DataV2', 'pushUrlsCache']);
  });

  it.each(labelled)('%s: PermissionError (403), sent once', async (op) => {
    const err = await rejection(send(ctx.clientWith({ token: LIMITED_TOKEN }), op, validRequests(ctx.sim.world)));
    expect(err).toBeInstanceOf(PermissionError);
    if (!(err instanceof PermissionError)) return;
    expect(errorFields(err)).toEqual({ name: 'PermissionError', code: 'EDGE_PERMISSION', operation: op, status: 403 });
    expect(ctx.sim.requestCounts()).toEqual({ [op]: 1 });
  });

  it.each(['getPackages', 'listDomains', 'describeL7Data'] as const)('%s (no label): succeeds', async (op) => {
    await expect(send(ctx.clientWith({ token: LIMITED_TOKEN }), op, validRequests(ctx.sim.world))).resolves.toMatchObject({ code: 200 });
  });
});

describe('auth_scheme raw', () => {
  it('sends the bare token to a management operation, which accepts it', async () => {
    const raw = ctx.clientWith({ authScheme: 'raw' });
    const res = await raw.listDomains({ filters: [], searchHeader: { isActive: [] }, pageNum: 1, pageSize: 5 });
    expect(res.total).toBe(ctx.sim.world.domains.length);
  });

  it('still sends Bearer to the WAF log query, which refuses a bare token', async () => {
    const body = validRequests(ctx.sim.world).describeLogV2;
    // Control: the simulator really refuses the bare token on this operation.
    const bare = await fetch(`${ctx.url}${OPERATIONS.describeLogV2.path}`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: TOKEN }, body: JSON.stringify(body),
    });
    expect(bare.status).toBe(401);
    await expect(ctx.clientWith({ authScheme: 'raw' }).describeLogV2(body)).resolves.toMatchObject({ code: 200 });
  });
});

describe('path overrides', () => {
  const documented = OPERATION_NAMES.filter((op) => OPERATIONS[op].documentedPath !== undefined);

  it('covers listDomains and describeL7DataV2 among the operations with a documented spelling', () => {
    expect(documented).toEqual(expect.arrayContaining(['listDomains', 'describeL7DataV2']));
  });

  it.each(documented)('%s: the documented literal path reaches the same operation', async (op) => {
    const path = OPERATIONS[op].documentedPath;
    const requests = validRequests(ctx.sim.world);
    const viaDocumented = await send(ctx.clientWith({ paths: { [op]: path } }), op, requests);
    expect(ctx.sim.requestCounts()).toEqual({ [op]: 1 });
    expect(viaDocumented).toMatchObject({ code: 200 });
    if (!OPERATIONS[op].write) expect(viaDocumented).toEqual(await send(ctx.client, op, requests));
  });

  it('a wrong override is a NotFoundError, not retried', async () => {
    const outcomes: string[] = [];
    const client = ctx.clientWith({ paths: { listDomains: '/prod-api/cdn/domain/lists' }, observer: { onResponse: (e) => outcomes.push(e.outcome) } });
    const err = await rejection(client.listDomains({ filters: [], searchHeader: { isActive: [] } }));
    expect(err).toBeInstanceOf(NotFoundError);
    if (!(err instanceof NotFoundError)) return;
    expect(errorFields(err)).toEqual({ name: 'NotFoundError', code: 'EDGE_NOT_FOUND', operation: 'listDomains', status: 404 });
    expect(outcomes).toEqual(['EDGE_NOT_FOUND']);
    // The simulator routed nothing to an operation.
    expect(ctx.sim.requestCounts()).toEqual({});
  });
});
