// The simulator's /__admin/ endpoints the cycle benchmark uses: request
// counts (requestCounts() of the simulator process) and reset + faults.
import { request } from 'undici';
import { z } from 'zod';

const stateSchema = z.object({ data: z.object({ domains: z.number(), requestCounts: z.record(z.string(), z.number()) }) });

type Counts = Readonly<Record<string, number>>;

async function call(url: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const res = await request(`${url}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const json: unknown = await res.body.json();
  if (res.statusCode !== 200) throw new Error(`${method} ${path} answered ${res.statusCode}: ${JSON.stringify(json)}`);
  return json;
}

export async function simState(url: string): Promise<{ domains: number; counts: Counts }> {
  const { data } = stateSchema.parse(await call(url, 'GET', '/__admin/state'));
  return { domains: data.domains, counts: data.requestCounts };
}

/** Fresh world, counts and rate-limit windows (reset clears faults too, so they are set again). */
export async function simReset(url: string, latencyMs: number): Promise<void> {
  await call(url, 'POST', '/__admin/reset');
  await call(url, 'POST', '/__admin/faults', latencyMs > 0 ? [{ latencyMs }] : []);
}

/** Requests per operation between two readings, operations with none left out. */
export function countsSince(before: Counts, after: Counts): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [op, n] of Object.entries(after)) {
    const delta = n - (before[op] ?? 0);
    if (delta > 0) out[op] = delta;
  }
  return out;
}
