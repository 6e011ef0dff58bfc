// The upstream for bench/cycle.ts, in its own process as a real upstream is:
// its CPU time is not charged to the exporter's event loop. Serves
// createSimulator({ domains, faults: [{ latencyMs }] }) on 127.0.0.1:0 until
// SIGTERM and prints `{"url": ...}` on stdout once listening. The benchmark
// reads request counts (requestCounts()) and resets it through /__admin/.
import { parseArgs } from 'node:util';
import { createSimulator } from '../../src/simulator/index.js';

const { values } = parseArgs({ options: { domains: { type: 'string' }, 'latency-ms': { type: 'string' } } });
const latencyMs = Number(values['latency-ms'] ?? '50');
const sim = createSimulator({ domains: Number(values.domains ?? '1000'), faults: latencyMs > 0 ? [{ latencyMs }] : [] });
const { url } = await sim.listen('127.0.0.1', 0);
process.stdout.write(`${JSON.stringify({ url })}\n`);
await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
await sim.close();
