import { OTLPExporterError } from '@opentelemetry/otlp-exporter-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryError } from '../../../src/forwarder/log-sink.js';
import { OtlpLogSink } from '../../../src/exporters/otel-logs/index.js';
import { directEndpoint } from '../../../src/outbound/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../support/otlp-receiver.js';
import { batchOf, denyEvent, denyEvents, RESOURCE, startedSink, waitFor } from './fixtures.js';

/** The rejection of `promise`, which must reject with a DeliveryError. */
async function deliveryError(promise: Promise<unknown>): Promise<DeliveryError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof DeliveryError)) throw new Error(`expected a DeliveryError, got ${String(error)}`);
  return error;
}

describe('OtlpLogSink when the receiver fails', () => {
  let receiver: OtlpReceiver;
  const sinks: OtlpLogSink[] = [];
  const sink = async (options: Parameters<typeof startedSink>[1] = {}): Promise<OtlpLogSink> => {
    const created = await startedSink(receiver.url, options);
    sinks.push(created);
    return created;
  };

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(() => {
    receiver.setDown(false);
    receiver.setStatus(200);
    receiver.setHold(false);
    receiver.reset();
  });
  afterAll(async () => {
    await Promise.all(sinks.map((s) => s.stop()));
    await receiver.close();
  });

  it('rejects with every uid after the SDK’s retries while the receiver answers 503, succeeds with the same batch once it is back, then refuses it', async () => {
    // 1.5 s leaves room for one SDK retry (first backoff 0.8-1.2 s), not for a third attempt.
    const s = await sink({ timeoutMs: 1_500, ackMarginMs: 1_000 });
    const events = denyEvents(1, 4);
    const batch = batchOf(s, events);
    receiver.setDown(true);
    const started = Date.now();
    const error = await deliveryError(s.deliver(batch));
    expect(Date.now() - started).toBeLessThan(s.ackDeadlineMs);
    expect(error.code).toBe('EDGE_DELIVERY');
    expect(error.failedUids).toEqual(events.map((e) => e.uid));
    const statuses = receiver.requests().map((r) => r.status);
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(new Set(statuses)).toEqual(new Set([503]));
    expect(receiver.uids()).toEqual([]);

    receiver.setDown(false);
    // Another batch filled meanwhile writes nowhere near the records of the one that failed.
    batchOf(s, denyEvents(10, 4));
    await s.deliver(batch);
    expect(receiver.uids()).toEqual(events.map((e) => e.uid));
    // Confirmed, it is spent: its memory is the sink's again, and it is never sent twice.
    expect((await deliveryError(s.deliver(batch))).message).toMatch(/confirmed already/);
    expect(receiver.requests().filter((r) => r.status === 200)).toHaveLength(1);
  });

  it('rejects at once on a non-retryable status, with the status in the cause', async () => {
    const s = await sink();
    receiver.setStatus(400);
    const error = await deliveryError(s.deliver(batchOf(s, [denyEvent(1)])));
    expect(error.failedUids).toEqual(['req-0001']);
    expect(error.cause).toBeInstanceOf(OTLPExporterError);
    expect((error.cause as OTLPExporterError).code).toBe(400);
    expect(receiver.requests()).toHaveLength(1);
  });

  it('refuses a batch larger than maxBatch up front', async () => {
    const s = await sink({ maxBatch: 3 });
    const events = denyEvents(1, 4);
    const error = await deliveryError(s.deliver(batchOf(s, events)));
    expect(error.message).toMatch(/exceeds maxBatch 3/);
    expect(error.failedUids).toEqual(events.map((e) => e.uid));
    await s.deliver(batchOf(s, events.slice(0, 3)));
    expect(receiver.requests()).toHaveLength(1);
  });

  it('refuses a batch with a duplicated uid', async () => {
    const s = await sink();
    const error = await deliveryError(s.deliver(batchOf(s, [denyEvent(1), denyEvent(2), denyEvent(1)])));
    expect(error.message).toMatch(/duplicate log\.record\.uid.*req-0001/);
    expect(receiver.requests()).toHaveLength(0);
  });

  it('rejects every unconfirmed uid when the signal aborts, without waiting for the receiver', async () => {
    const s = await sink();
    receiver.setHold(true);
    const controller = new AbortController();
    const delivery = s.deliver(batchOf(s, denyEvents(1, 2)), controller.signal);
    await waitFor(() => receiver.requests().length === 1, 'the export request');
    controller.abort(new Error('daemon stopping'));
    const error = await deliveryError(delivery);
    expect(error.failedUids).toEqual(['req-0001', 'req-0002']);
    expect(error.cause).toEqual(new Error('daemon stopping'));
    const already = await deliveryError(s.deliver(batchOf(s, [denyEvent(3)]), controller.signal));
    expect(already.failedUids).toEqual(['req-0003']);
    receiver.setHold(false);
  });

  it('lets an accepted delivery finish on stop, then refuses new ones', async () => {
    const s = await sink();
    receiver.setHold(true);
    const delivery = s.deliver(batchOf(s, denyEvents(1, 3)));
    await waitFor(() => receiver.requests().length === 1, 'the export request');
    const stopped = s.stop();
    expect(s.stop()).toBe(stopped);
    receiver.setHold(false);
    await delivery;
    await stopped;
    expect(receiver.uids()).toEqual(['req-0001', 'req-0002', 'req-0003']);
    const after = await deliveryError(s.deliver(batchOf(s, [denyEvent(4)])));
    expect(after.message).toMatch(/shut down/);
    await expect(s.start()).rejects.toThrow(/after stop/);
  });

  it('refuses deliveries before start, and start is idempotent', async () => {
    const s = new OtlpLogSink({ endpoint: directEndpoint('otlp', receiver.url), resource: RESOURCE });
    sinks.push(s);
    expect((await deliveryError(s.deliver(batchOf(s, [denyEvent(1)])))).message).toMatch(/not started/);
    await s.start();
    await s.start();
    await s.deliver(batchOf(s, [denyEvent(1)]));
    await s.flush();
    expect(receiver.requests()).toHaveLength(1);
  });

  it.each([
    [{ maxBatch: 0 }, /maxBatch must be a positive integer/],
    [{ timeoutMs: 1.5 }, /timeoutMs must be a positive integer/],
    [{ endpoint: directEndpoint('otlp', 'not a url') }, /endpoint is not a URL/],
  ])('rejects bad options %j', (options, message) => {
    expect(() => new OtlpLogSink({ resource: RESOURCE, ...options })).toThrow(message);
  });
});
