// The prober asks read operations only: its type admits no write, and a write
// that a cast slips past the type is refused before anything is sent.
import { expect, it } from 'vitest';
import type { ReadClient } from '../../src/api/index.js';
import { Prober } from '../../src/doctor/probe.js';
import { createLogger } from '../../src/log/logger.js';

function prober(): { prober: Prober; asked: string[] } {
  const asked: string[] = [];
  const client = new Proxy({} as ReadClient, {
    get: (_, name) => () => {
      asked.push(String(name));
      return Promise.resolve({ code: 200, msg: 'ok', data: [] });
    },
  });
  const p = new Prober({ client, now: () => 0, signal: new AbortController().signal, deadlineMs: 1_000, log: createLogger({ level: 'silent' }) });
  return { prober: p, asked };
}

it('asks a read operation through the read client', async () => {
  const { prober: p, asked } = prober();
  await expect(p.ask('getPackages', {})).resolves.toMatchObject({ kind: 'answer' });
  expect(asked).toEqual(['getPackages']);
  expect(p.sent).toBe(1);
});

it('refuses a write with EDGE_DOCTOR_WRITE and sends nothing', async () => {
  const { prober: p, asked } = prober();
  // @ts-expect-error the doctor's prober admits read operations only
  const write = p.ask('insertRule', { oid: 'p' });
  await expect(write).rejects.toMatchObject({ code: 'EDGE_DOCTOR_WRITE', message: 'the doctor never sends insertRule (a write operation)' });
  expect(asked).toEqual([]);
  expect(p.sent).toBe(0);
});
