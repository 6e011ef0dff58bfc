// The WAF forwarder's compute alone, stage by stage, in this process: no
// HTTP, no checkpoint, no de-duplication (section 12.9 of `git show 7888197:docs/benchmarks.md`). An hour of
// the simulator's deny records as the upstream's pages (JSON, 500 per page,
// the wire's UTF-8), then per stage and record the process's CPU (every
// thread, so GC helpers too) over --rounds passes:
//   parse   the page decoded and parsed (transport.ts's work);
//   convert and each record converted (toLogEvent);
//   batch   and the events held until a batch of 512 is encoded and serialized whole;
//   encode  and each event added to the sink's batch as it is converted (its
//           record encoded then, the forwarder keeping what it reads: outgoing.ts),
//           the batch serialized from the bytes and then spent.
// --stage=NAME runs that stage alone (the others share one heap, in order).
// Run by hand under the daemon's flags, e.g.
//   for s in parse convert batch encode; do
//     node --heap-growing-percent=20 --max-semi-space-size=4 --import tsx bench/waf-stages.ts --stage=$s; done
import { parseArgs } from 'node:util';
import { wafLogRecord, type WafLogRecord } from '../src/api/schemas/waf-log.js';
import type { LogEvent } from '../src/forwarder/index.js';
import { headerPolicy, toLogEvent } from '../src/forwarder/convert.js';
import { Outgoing } from '../src/forwarder/outgoing.js';
import { createLogsSerializer } from '../src/exporters/otel-logs/otlp-serializer.js';
import { SCOPE_NAME, buildResource } from '../src/exporters/otel-logs/pipeline.js';
import { instrumentationScope } from '../src/exporters/otel-logs/record.js';
import { DENY_STATUS } from '../src/simulator/waf.js';
import { BENCH_TZ, benchWafLog } from './lib/waf-log.js';
import { table } from './lib/stats.js';

const STAGES = ['parse', 'convert', 'batch', 'encode'] as const;
type Stage = (typeof STAGES)[number];
const PAGE = 500;
const BATCH = 512;
/** As bench/waf.ts's 200k backlog: 0.5 deny events per domain and minute. */
const DOMAINS = 6897;

const { values } = parseArgs({ options: { rounds: { type: 'string' }, stage: { type: 'string' } } });
const rounds = Number(values.rounds ?? '3');
const tz = BENCH_TZ;
const waf = benchWafLog(DOMAINS);
const nowMs = Date.now();
const records: unknown[] = [];
waf.forEach(nowMs - 3_600_000, nowMs, {}, (e) => {
  if (e.record.response.httpCode === DENY_STATUS) records.push(wafLogRecord.parse(e.record));
});
const pages: Buffer[] = [];
for (let i = 0; i < records.length; i += PAGE) {
  pages.push(Buffer.from(JSON.stringify({ code: 200, msg: 'success', data: [{ metricName: 'logs', list: records.slice(i, i + PAGE) }] })));
}
const policy = headerPolicy();
const resource = buildResource({ serviceName: 'edge-exporter', serviceVersion: 'bench', serviceInstanceId: 'bench', attributes: {} });

/** µs of process CPU per record over `rounds` passes of every page through `stage`. */
function run(stage: Stage): number {
  const serializer = createLogsSerializer(resource, instrumentationScope(SCOPE_NAME, 'bench'));
  /** The events held whole (batch); the sink's batch, and what the forwarder keeps of each event added (encode). */
  let held: LogEvent[] = [];
  let records = serializer.batch();
  let outgoing = new Outgoing(records);
  let count = 0;
  let bytes = 0;
  const send = (): void => {
    for (const event of held) records.add(event);
    bytes += serializer.serializeRequest(records)?.length ?? 0;
    records.spend();
    held = [];
    records = serializer.batch();
    outgoing = new Outgoing(records);
  };
  const start = process.cpuUsage();
  for (let r = 0; r < rounds; r++) {
    for (const page of pages) {
      const list = (JSON.parse(page.toString('utf8')) as { data: Array<{ list: WafLogRecord[] }> }).data[0]?.list ?? [];
      count += list.length;
      if (stage === 'parse') continue;
      for (const record of list) {
        const event = toLogEvent(record, nowMs, policy, tz.offsetMinutes);
        if (stage === 'convert') continue;
        if (stage === 'encode') outgoing.add(event);
        else held.push(event);
        if (held.length + records.size === BATCH) send();
      }
    }
  }
  if (held.length + records.size > 0) send();
  const cpu = process.cpuUsage(start);
  if (stage !== 'parse' && stage !== 'convert' && bytes === 0) throw new Error('nothing serialized');
  return (cpu.user + cpu.system) / count;
}

const only = STAGES.find((stage) => stage === values.stage);
if (values.stage !== undefined && only === undefined) throw new Error(`--stage: one of ${STAGES.join(', ')}`);
const rows = (only === undefined ? STAGES : [only]).map((stage) => [stage, `${run(stage).toFixed(1)} µs`]);
process.stdout.write(`${records.length} deny records in ${pages.length} pages, ${rounds} rounds, node ${process.version} ${process.execArgv.join(' ')}\n\n`);
process.stdout.write(`${table(['stage (cumulative)', 'process CPU per record'], rows)}\n`);
