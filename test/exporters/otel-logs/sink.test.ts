import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OtlpLogSink } from '../../../src/exporters/otel-logs/index.js';
import type { OtlpProtocol } from '../../../src/exporters/otel-logs/options.js';
import { SEMCONV_SCHEMA_URL } from '../../../src/exporters/otel-logs/record.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../support/otlp-receiver.js';
import { batchOf, denyEvent, denyEvents, RESOURCE, startedSink, waitFor } from './fixtures.js';

const NS_PER_MS = 1_000_000n;

describe.each([
  ['http/protobuf', 'application/x-protobuf'],
  ['http/json', 'application/json'],
] as const)('OtlpLogSink over %s', (protocol: OtlpProtocol, contentType) => {
  let receiver: OtlpReceiver;
  let sink: OtlpLogSink;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    sink = await startedSink(receiver.url, { protocol, headers: { 'x-tenant': 'edge-test' } });
  });
  afterEach(() => {
    receiver.setHold(false);
    receiver.reset();
  });
  afterAll(async () => {
    await sink.stop();
    await receiver.close();
  });

  it('delivers every field of every record, in the record’s own fields', async () => {
    const events = [denyEvent(1), denyEvent(2, { severity: 'WARN', severityText: '中风险' }), denyEvent(3, { severity: 'UNSPECIFIED', severityText: '' })];
    await sink.deliver(batchOf(sink, events));

    const request = receiver.requests()[0];
    expect(request?.contentType).toBe(contentType);
    expect(request?.status).toBe(200);
    const records = receiver.records();
    expect(records).toHaveLength(3);
    const [first, second, third] = records;
    expect(first).toEqual({
      timeUnixNano: BigInt(events[0]!.timestampMs) * NS_PER_MS,
      observedTimeUnixNano: BigInt(events[0]!.observedMs) * NS_PER_MS,
      severityNumber: 17,
      severityText: '高风险',
      eventName: 'edge.waf.deny',
      body: 'GET /login?id=1 from 203.0.113.7 denied: SQL injection',
      attributes: { 'log.record.uid': 'req-0001', ...events[0]!.attributes },
      droppedAttributesCount: 0,
      resource: expect.objectContaining({
        'service.name': RESOURCE.serviceName,
        'service.version': RESOURCE.serviceVersion,
        'service.instance.id': RESOURCE.serviceInstanceId,
        'telemetry.sdk.language': 'nodejs',
      }),
      resourceSchemaUrl: SEMCONV_SCHEMA_URL,
      scope: { name: 'edge-exporter', version: RESOURCE.serviceVersion, schemaUrl: SEMCONV_SCHEMA_URL },
    });
    expect(first?.attributes['edge.waf.rule_ids']).toEqual(['100001', '100002']);
    expect([second?.severityNumber, second?.severityText]).toEqual([13, '中风险']);
    expect([third?.severityNumber, third?.severityText]).toEqual([0, '']);
    expect(receiver.uids()).toEqual(['req-0001', 'req-0002', 'req-0003']);
  });

  it('sends the configured headers', async () => {
    await sink.deliver(batchOf(sink, [denyEvent(10)]));
    expect(receiver.requests()[0]?.headers['x-tenant']).toBe('edge-test');
  });

  it('resolves only after the receiver has answered 200', async () => {
    receiver.setHold(true);
    let settled = false;
    const delivery = sink.deliver(batchOf(sink, denyEvents(20, 5))).finally(() => (settled = true));
    await waitFor(() => receiver.requests().length === 1, 'the export request');
    // The request is in, decoded and unanswered: nothing is confirmed yet.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    expect(receiver.requests()[0]?.status).toBeUndefined();
    receiver.setHold(false);
    await delivery;
    expect(receiver.uids()).toEqual(['req-0020', 'req-0021', 'req-0022', 'req-0023', 'req-0024']);
  });

  it('sends one export per deliver, a full maxBatch included', async () => {
    await sink.deliver(batchOf(sink, denyEvents(100, sink.maxBatch)));
    expect(receiver.requests()).toHaveLength(1);
    expect(receiver.uids()).toHaveLength(sink.maxBatch);
  });

  it('runs concurrent deliveries one after the other, each confirmed', async () => {
    await Promise.all([sink.deliver(batchOf(sink, denyEvents(200, 3))), sink.deliver(batchOf(sink, denyEvents(300, 3))), sink.deliver(batchOf(sink, denyEvents(400, 3)))]);
    expect(receiver.requests()).toHaveLength(3);
    expect(new Set(receiver.uids()).size).toBe(9);
  });
});

describe('OtlpLogSink with gzip compression', () => {
  it('compresses the request and names itself in the user agent', async () => {
    const receiver = await startOtlpReceiver();
    const sink = await startedSink(receiver.url, { compression: 'gzip' });
    try {
      await sink.deliver(batchOf(sink, [denyEvent(1)]));
      const request = receiver.requests()[0];
      expect(request?.contentEncoding).toBe('gzip');
      expect(request?.headers['user-agent']).toMatch(/^edge-exporter\/0\.1\.0-test OTel-OTLP-Exporter-JavaScript\//);
      expect(receiver.uids()).toEqual(['req-0001']);
    } finally {
      await sink.stop();
      await receiver.close();
    }
  });
});
