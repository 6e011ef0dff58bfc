// The two peers of bench/waf.ts, in a process of their own so their CPU and
// memory are not charged to the forwarder: the simulator as the upstream, and
// an OTLP/HTTP receiver on 127.0.0.1 that answers every export 200 and only
// counts bytes (decoding is the tests' job, test/support/otlp-receiver.ts).
// The simulator's own describeLogV2 generates the whole window again for every
// page (fine for tests, quadratic for a backlog of a million), so here the
// same WafLog serves a window's deny records generated once, newest first,
// paged as the simulator pages them. Prints `{"upstream","receiver","events"}`.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { buildSimulator } from '../../src/simulator/simulator.js';
import { ok, type SimRequest } from '../../src/simulator/types.js';
import { DENY_STATUS, type WafEvent } from '../../src/simulator/waf.js';
import { BENCH_TZ, benchWafLog } from './waf-log.js';

const { values } = parseArgs({ options: { domains: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } } });
const domains = Number(values.domains ?? '1000');
const tz = BENCH_TZ;
const waf = benchWafLog(domains);

const MINUTE_MS = 60_000;
/** Requests by action, for the requests-per-hour figures (stderr at the end). */
let trendRequests = 0;
let logsRequests = 0;
const backlog = { from: Number(values.from ?? Number.NEGATIVE_INFINITY), to: Number(values.to ?? Number.POSITIVE_INFINITY) };
let cached: { key: string; events: WafEvent[] } | undefined;
function windowOf(begin: number, end: number): WafEvent[] {
  const key = `${begin}-${end}`;
  if (cached?.key !== key) {
    const events: WafEvent[] = [];
    // The backlog is [from, to): nothing past it, so a poll that reads on past its end (bench/waf.ts) forwards no more.
    waf.forEach(Math.max(begin, backlog.from), Math.min(end, backlog.to), {}, (e) => {
      if (e.record.response.httpCode === DENY_STATUS) events.push(e);
    });
    events.sort((a, b) => b.time - a.time || (a.record.requestId < b.record.requestId ? -1 : 1));
    cached = { key, events };
  }
  return cached.events;
}

/** logTread (the delivery audit's counts): deny events per minute of [begin, end), as the simulator sizes a range under 6 h. */
function trendOf(begin: number, end: number): ReturnType<typeof ok> {
  const counts = new Map<number, number>();
  for (let m = begin; m < end; m += MINUTE_MS) counts.set(m, 0);
  let total = 0;
  waf.forEach(Math.max(begin, backlog.from), Math.min(end, backlog.to), {}, (e) => {
    if (e.record.response.httpCode !== DENY_STATUS) return;
    const m = Math.floor(e.time / MINUTE_MS) * MINUTE_MS;
    counts.set(m, (counts.get(m) ?? 0) + 1);
    total++;
  });
  return ok({ data: total === 0 ? null : [{ metricName: 'logTread', objectArrayList: [...counts], count: total }] });
}

function describeLog(req: SimRequest): ReturnType<typeof ok> {
  const body = req.body as { action: Array<{ metricName: string; pageNo: number; pageSize: number }>; params: { beginTime: string; endTime: string } };
  const begin = tz.parseDateTime(body.params.beginTime);
  const end = tz.parseDateTime(body.params.endTime);
  if (body.action[0]?.metricName === 'logTread') {
    trendRequests++;
    return trendOf(begin, end);
  }
  logsRequests++;
  const events = windowOf(begin, end);
  const { pageNo, pageSize } = body.action[0] ?? { pageNo: 1, pageSize: 10 };
  const list = events.slice((pageNo - 1) * pageSize, pageNo * pageSize).map((e) => e.record);
  return ok({ data: list.length === 0 && pageNo === 1 ? null : [{ metricName: 'logs', list }] });
}

const sim = buildSimulator({ domains: 1 }, [() => ({ handlers: { describeLogV2: describeLog } })]);
const { url: upstream } = await sim.listen('127.0.0.1', 0);

let received = 0;
const receiver = createServer((req, res) => {
  req.on('data', (chunk: Buffer) => (received += chunk.length));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/x-protobuf' });
    res.end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const port = (receiver.address() as AddressInfo).port;

let events = 0;
if (values.from !== undefined && values.to !== undefined) {
  waf.forEach(Number(values.from), Number(values.to), {}, (e) => {
    if (e.record.response.httpCode === DENY_STATUS) events++;
  });
}
process.stdout.write(`${JSON.stringify({ upstream, receiver: `http://127.0.0.1:${port}/v1/logs`, events })}\n`);
await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
process.stderr.write(`waf peers: ${received} bytes received, ${logsRequests} logs and ${trendRequests} logTread requests\n`);
receiver.closeAllConnections();
await Promise.all([sim.close(), new Promise((resolve) => receiver.close(resolve))]);
