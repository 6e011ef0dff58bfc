// The one error base and how a failure is described: as log fields, as the
// status page's plain data, and as the fixed message of a failed run.
import { describe, expect, it } from 'vitest';
import { AuthError, HttpError, NetworkError, PermissionError, TimeoutError } from '../../src/api/errors.js';
import { describeError, EdgeError, errorFields, failureMessage, InternalError } from '../../src/shared/errors.js';

class FileGone extends EdgeError {
  readonly code = 'EDGE_TEST_FILE';
}

describe('EdgeError', () => {
  it('is an Error named after its class, with its code, and keeps a cause given', () => {
    const cause = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
    const err = new FileGone('cannot read /x', { cause });
    expect(err).toBeInstanceOf(Error);
    expect(err).toBeInstanceOf(EdgeError);
    expect(err.name).toBe('FileGone');
    expect(err.code).toBe('EDGE_TEST_FILE');
    expect(err.message).toBe('cannot read /x');
    expect(err.cause).toBe(cause);
  });

  it('has no cause property at all when none is given', () => {
    expect(Object.hasOwn(new FileGone('x'), 'cause')).toBe(false);
    expect(Object.hasOwn(new FileGone('x', {}), 'cause')).toBe(false);
  });

  it('logs its code and message by default', () => {
    expect(new FileGone('cannot read /x').logFields()).toEqual({ code: 'EDGE_TEST_FILE', error: 'cannot read /x' });
  });

  it('InternalError carries EDGE_INTERNAL, the code a foreign error without one is given', () => {
    const err = new InternalError('the daemon cannot go from stopped to running');
    expect(err).toBeInstanceOf(EdgeError);
    expect(err.code).toBe('EDGE_INTERNAL');
    expect(describeError(new Error('x')).code).toBe(err.code);
  });
});

describe('describeError', () => {
  const network = new NetworkError('cannot reach api.example.com:443 (ECONNREFUSED)', {
    operation: 'listDomains', address: 'api.example.com:443', reason: 'ECONNREFUSED', hint: 'check upstream.api_url',
  });

  it.each([
    ['one of ours', new FileGone('cannot read /x'), { code: 'EDGE_TEST_FILE', message: 'cannot read /x' }],
    ['a client error: operation and status', new HttpError('listDomains: HTTP 502', { operation: 'listDomains', status: 502 }),
      { code: 'EDGE_HTTP', message: 'listDomains: HTTP 502', operation: 'listDomains', status: 502 }],
    ['a failed connection: address and hint', network,
      { code: 'EDGE_NETWORK', message: network.message, operation: 'listDomains', address: 'api.example.com:443', hint: 'check upstream.api_url' }],
    ['a foreign error with a code', Object.assign(new Error('no such file'), { code: 'ENOENT' }), { code: 'ENOENT', message: 'no such file' }],
    ['a foreign error without one', new TypeError('x is not a function'), { code: 'EDGE_INTERNAL', message: 'x is not a function' }],
    ['something not an Error', 'a string', { code: 'EDGE_INTERNAL', message: 'a string' }],
    ['undefined', undefined, { code: 'EDGE_INTERNAL', message: 'undefined' }],
  ])('%s', (_, err, described) => {
    expect(describeError(err)).toEqual(described);
  });

  it('ignores fields of the wrong type', () => {
    const odd = Object.assign(new Error('odd'), { code: 7, operation: 1, status: '500', address: {}, hint: null });
    expect(describeError(odd)).toEqual({ code: 'EDGE_INTERNAL', message: 'odd' });
  });

  it('lets the first failure of an AggregateError (nested too) stand for all, and counts them', () => {
    const first = new TimeoutError('listDomains: timed out', { operation: 'listDomains' });
    const all = new AggregateError([new AggregateError([first]), new FileGone('y')], 'access: every request failed');
    expect(describeError(all)).toEqual({
      code: 'EDGE_TIMEOUT',
      operation: 'listDomains',
      message: 'access: every request failed (2 failures, the first: listDomains: timed out)',
    });
  });

  it('describes an empty AggregateError as itself', () => {
    expect(describeError(new AggregateError([], 'nothing'))).toEqual({ code: 'EDGE_INTERNAL', message: 'nothing' });
  });
});

describe('errorFields', () => {
  it('gives an error of ours its own fields: a client error never its upstream text', () => {
    const err = new HttpError('listDomains: HTTP 500: secret upstream text', { operation: 'listDomains', status: 500, upstreamCode: 500 });
    expect(errorFields(err)).toEqual({ code: 'EDGE_HTTP', operation: 'listDomains', status: 500, upstreamCode: 500 });
    expect(errorFields(new FileGone('cannot read /x'))).toEqual({ code: 'EDGE_TEST_FILE', error: 'cannot read /x' });
  });

  it('gives a foreign error its code and message', () => {
    expect(errorFields(Object.assign(new Error('gone'), { code: 'ENOENT' }))).toEqual({ code: 'ENOENT', error: 'gone' });
    expect(errorFields(new Error('bug'))).toEqual({ code: 'EDGE_INTERNAL', error: 'bug' });
    expect(errorFields(42)).toEqual({ code: 'EDGE_INTERNAL', error: '42' });
  });

  it('gives an AggregateError its first failure\'s fields and how many failed', () => {
    const auth = new AuthError('listDomains: HTTP 401', { operation: 'listDomains', status: 401 });
    expect(errorFields(new AggregateError([auth, new Error('b')], 'all failed'))).toEqual({
      code: 'EDGE_AUTH', operation: 'listDomains', status: 401, failures: 2,
    });
  });
});

describe('failureMessage', () => {
  const auth = new AuthError('listDomains: HTTP 401', { operation: 'listDomains', status: 401 });
  const permission = new PermissionError('listDomains: HTTP 403', { operation: 'listDomains', status: 403 });

  it.each([
    ['a refused token', auth, 'collector run failed: token may be invalid / lacks permission'],
    ['a missing permission', permission, 'collector run failed: token may be invalid / lacks permission'],
    ['a refused token first among many', new AggregateError([auth, new Error('x')]), 'collector run failed: token may be invalid / lacks permission'],
    ['a refused token after another failure', new AggregateError([new Error('x'), auth]), 'collector run failed'],
    ['anything else', new FileGone('x'), 'collector run failed'],
    ['a foreign error that borrows the code', Object.assign(new Error('x'), { code: 'EDGE_AUTH' }), 'collector run failed'],
  ])('%s', (_, err, message) => {
    expect(failureMessage(err, 'collector run')).toBe(message);
  });
});
