import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { addLogSecret, createLogger, redactSecrets } from '../../src/log/logger.js';

const TOKEN = 'tok-SECRET-7f3a9c+/=';

/** A logger writing into memory; `lines()` returns the parsed JSON lines and the raw text. */
function memoryLogger(secrets: readonly string[] = [TOKEN]) {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const logger = createLogger({ level: 'trace', secrets, destination });
  const raw = (): string => chunks.join('');
  const lines = (): Record<string, unknown>[] =>
    raw()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, lines, raw };
}

describe('createLogger: redaction by key', () => {
  it.each([
    ['token', { token: 'a-plain-value' }, ['token']],
    ['nested token', { upstream: { token: 'a-plain-value' } }, ['upstream', 'token']],
    ['two levels deep', { config: { upstream: { token: 'a-plain-value' } } }, ['config', 'upstream', 'token']],
    ['authorization', { authorization: 'Bearer a-plain-value' }, ['authorization']],
    ['Authorization', { Authorization: 'Bearer a-plain-value' }, ['Authorization']],
    ['headers.authorization', { headers: { authorization: 'Bearer x' } }, ['headers', 'authorization']],
    ['req.headers.authorization', { req: { headers: { authorization: 'Bearer x' } } }, ['req', 'headers', 'authorization']],
    ['request.headers.Authorization', { request: { headers: { Authorization: 'x' } } }, ['request', 'headers', 'Authorization']],
    ['password', { password: 'hunter22' }, ['password']],
    ['nested password', { db: { password: 'hunter22' } }, ['db', 'password']],
    ['sslKey', { tls: { sslKey: '-----BEGIN KEY-----' } }, ['tls', 'sslKey']],
  ])('%s is [REDACTED]', (_name, fields, path) => {
    const { logger, lines } = memoryLogger([]);
    logger.info(fields, 'hello');
    let value: unknown = lines()[0];
    for (const key of path) value = (value as Record<string, unknown>)[key];
    expect(value).toBe('[REDACTED]');
  });

  it('redacts the Authorization header of an error config', () => {
    const { logger, lines } = memoryLogger([]);
    const err = Object.assign(new Error('request failed'), { config: { headers: { Authorization: 'Bearer x' } } });
    logger.error({ err }, 'failed');
    expect(lines()[0]).toMatchObject({ err: { message: 'request failed', config: { headers: { Authorization: '[REDACTED]' } } } });
  });

  it('leaves other fields untouched', () => {
    const { logger, lines } = memoryLogger();
    logger.info({ operation: 'listDomains', domain: 'a.example', count: 3, headers: { 'content-type': 'json' } }, 'polled');
    expect(lines()[0]).toMatchObject({
      level: 'info',
      msg: 'polled',
      operation: 'listDomains',
      domain: 'a.example',
      count: 3,
      headers: { 'content-type': 'json' },
    });
  });
});

describe('createLogger: scrubbing the literal token', () => {
  it.each([
    ['in the message', (l: ReturnType<typeof memoryLogger>['logger']) => l.warn(`token ${TOKEN} rejected`)],
    ['in an error message', (l: ReturnType<typeof memoryLogger>['logger']) => l.error({ err: new Error(`bad header Bearer ${TOKEN}`) }, 'failed')],
    ['in a URL', (l: ReturnType<typeof memoryLogger>['logger']) => l.info({ url: `https://a.example/x?token=${encodeURIComponent(TOKEN)}` }, 'GET')],
    ['in an unlisted field', (l: ReturnType<typeof memoryLogger>['logger']) => l.info({ note: `the token is ${TOKEN}` })],
    ['JSON-escaped', (l: ReturnType<typeof memoryLogger>['logger']) => l.info({ body: JSON.stringify({ t: TOKEN }) })],
    ['in a child logger binding', (l: ReturnType<typeof memoryLogger>['logger']) => l.child({ auth: TOKEN }).info('x')],
  ])('%s', (_name, log) => {
    const memory = memoryLogger();
    log(memory.logger);
    expect(memory.raw()).not.toContain(TOKEN);
    expect(memory.raw()).not.toContain(encodeURIComponent(TOKEN));
    expect(memory.raw()).toContain('[REDACTED]');
    expect(memory.lines()).toHaveLength(1);
  });

  it('keeps the rest of the line', () => {
    const { logger, lines } = memoryLogger();
    logger.info({ url: `https://a.example/x?token=${TOKEN}&page=2` }, 'GET');
    expect(lines()[0]).toMatchObject({ url: 'https://a.example/x?token=[REDACTED]&page=2', msg: 'GET' });
  });

  it('ignores secrets shorter than 4 characters', () => {
    const { logger, lines } = memoryLogger(['abc', '']);
    logger.info({ word: 'abcdef' }, 'fine');
    expect(lines()[0]).toMatchObject({ word: 'abcdef', msg: 'fine' });
  });
});

describe('redactSecrets', () => {
  it.each([
    [`Authorization: Bearer ${TOKEN}`, [TOKEN], 'Authorization: Bearer [REDACTED]'],
    [`${TOKEN} and ${TOKEN}`, [TOKEN], '[REDACTED] and [REDACTED]'],
    ['nothing secret here', [TOKEN], 'nothing secret here'],
    ['key=abc', ['abc'], 'key=abc'],
    ['longer-secret and longer', ['longer', 'longer-secret'], '[REDACTED] and [REDACTED]'],
  ])('%j', (text, secrets, expected) => {
    expect(redactSecrets(text, secrets)).toBe(expected);
  });
});

describe('addLogSecret: a secret learnt while running', () => {
  const ROTATED = 'rotated-token-91c4e7';

  it('masks it from then on in the logger, in children made before and after, in messages and fields', () => {
    const { logger, raw } = memoryLogger([TOKEN]);
    const before = logger.child({ component: 'upstream' });
    expect(addLogSecret(logger, ROTATED)).toBe(true);
    const after = logger.child({ component: 'targets' });
    logger.info(`root ${ROTATED}`);
    before.warn({ detail: `x-${ROTATED}-y` }, 'child made before');
    after.error(new Error(`failed with ${ROTATED}`), `child made after ${TOKEN}`);
    expect(raw()).not.toContain(ROTATED);
    expect(raw()).not.toContain(TOKEN);
    expect(raw().split('[REDACTED]').length - 1).toBe(5);
  });

  it('works through a child and on a logger created without secrets', () => {
    const { logger, raw } = memoryLogger([]);
    expect(addLogSecret(logger.child({ a: 1 }), ROTATED)).toBe(true);
    logger.info(`a ${encodeURIComponent(ROTATED)} b ${JSON.stringify(ROTATED)}`);
    expect(raw()).not.toContain(ROTATED);
  });

  it('says false for a secret too short or already known, and for a logger createLogger did not make', () => {
    const { logger } = memoryLogger([TOKEN]);
    expect(addLogSecret(logger, 'abc')).toBe(false);
    expect(addLogSecret(logger, TOKEN)).toBe(false);
    expect(addLogSecret(pino({ level: 'silent' }), ROTATED)).toBe(false);
  });
});

describe('createLogger: format', () => {
  /** A stream collecting what is written, optionally claiming to be a terminal. */
  function sink(isTTY: boolean) {
    const chunks: string[] = [];
    const stream = Object.assign(new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk.toString());
        callback();
      },
    }), isTTY ? { isTTY: true } : {});
    return { stream, text: () => chunks.join('') };
  }

  it('pretty: one readable line per entry, written before the call returns, with the ISO time and secrets masked', () => {
    const out = sink(false);
    const logger = createLogger({ level: 'info', format: 'pretty', secrets: [TOKEN], destination: out.stream });
    logger.warn({ endpoint: 'http://127.0.0.1:4318/v1/logs', token2: TOKEN }, 'OTLP delivery failing');
    const text = out.text();
    expect(text).toMatch(/^\[\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\] WARN: OTLP delivery failing \{"endpoint":"http:\/\/127\.0\.0\.1:4318\/v1\/logs","token2":"\[REDACTED\]"\}\n$/);
    // Not a terminal: no colour codes.
    expect(text).not.toContain('\u001b[');
  });

  it('defaults to pretty (coloured) on a terminal and to JSON elsewhere', () => {
    const tty = sink(true);
    createLogger({ level: 'info', destination: tty.stream }).info('on a terminal');
    expect(tty.text()).toContain('on a terminal');
    expect(tty.text()).toContain('\u001b[');
    expect(tty.text().startsWith('{')).toBe(false);

    const file = sink(false);
    createLogger({ level: 'info', destination: file.stream }).info('in a file');
    expect(JSON.parse(file.text())).toMatchObject({ level: 'info', msg: 'in a file' });
  });

  it('json when asked, even on a terminal', () => {
    const tty = sink(true);
    createLogger({ level: 'info', format: 'json', destination: tty.stream }).info('asked for json');
    expect(JSON.parse(tty.text())).toMatchObject({ msg: 'asked for json' });
  });
});
