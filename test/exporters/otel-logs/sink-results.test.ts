// How one export's result settles a whole deliver(): success, failure, a
// result that never comes (the deadline), an abort, and exporters that call
// back twice or throw. The exporter is a fake that hands its callbacks to
// the test; the real receiver's answers are in sink.test.ts and
// sink-failures.test.ts.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeliveryError } from '../../../src/forwarder/log-sink.js';
import { OtlpLogSink } from '../../../src/exporters/otel-logs/index.js';
import { batchOf, denyEvents, RESOURCE } from './fixtures.js';

const OK: ExportResult = { code: ExportResultCode.SUCCESS };
const failed = (message: string): ExportResult => ({ code: ExportResultCode.FAILED, error: new Error(message) });

/** A sink over an exporter whose export() the test answers (or not). */
async function sinkOver(exportFn: LogRecordExporter['export']): Promise<{ sink: OtlpLogSink; warn: ReturnType<typeof vi.fn>; debug: ReturnType<typeof vi.fn> }> {
  const warn = vi.fn();
  const debug = vi.fn();
  const sink = new OtlpLogSink(
    { resource: RESOURCE, timeoutMs: 1_000, ackMarginMs: 500, headers: { authorization: 'Bearer secret' }, logger: { debug, warn } },
    { exporter: { export: exportFn, forceFlush: () => Promise.resolve(), shutdown: () => Promise.resolve() } },
  );
  await sink.start();
  return { sink, warn, debug };
}

/** What deliver() settled with: undefined when it resolved. */
const settledWith = (delivery: Promise<void>): Promise<unknown> => delivery.then(() => undefined, (error: unknown) => error);

describe('OtlpLogSink: one export result settles the whole batch', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves when the export calls back SUCCESS, having exported every record once, uid first', async () => {
    const exported: ReadableLogRecord[][] = [];
    const { sink, warn } = await sinkOver((records, callback) => {
      exported.push(records);
      callback(OK);
    });
    const events = denyEvents(1, 3);
    await expect(sink.deliver(batchOf(sink, events))).resolves.toBeUndefined();
    expect(exported.map((batch) => batch.map((r) => r.attributes['log.record.uid']))).toEqual([events.map((e) => e.uid)]);
    expect(warn).not.toHaveBeenCalled();
    await sink.stop();
  });

  it('rejects with every uid and the export error as cause when the export fails, and logs it at debug without secrets', async () => {
    const { sink, warn, debug } = await sinkOver((_records, callback) => callback(failed('receiver refused')));
    const events = denyEvents(1, 2);
    const error = await settledWith(sink.deliver(batchOf(sink, events)));
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).failedUids).toEqual(events.map((e) => e.uid));
    expect((error as DeliveryError).cause).toEqual(new Error('receiver refused'));
    expect((error as DeliveryError).message).toMatch(/^2 log records not confirmed by the OTLP receiver: receiver refused$/);
    expect((error as DeliveryError).detail).toEqual({ endpoint: 'http://localhost:4318/v1/logs' });
    // The warning is the caller's, once per failure spell (forwarder/deliver.ts); here each failed export is a debug line.
    expect(debug).toHaveBeenCalledWith({ records: 2, error: 'receiver refused', endpoint: 'http://localhost:4318/v1/logs' }, 'OTLP log export failed');
    expect(warn).not.toHaveBeenCalled();
    expect(JSON.stringify(debug.mock.calls)).not.toMatch(/secret/);
    await sink.stop();
  });

  it('takes the first of two callbacks: SUCCESS then FAILED is delivered, and the second is not logged', async () => {
    const { sink, warn } = await sinkOver((_records, callback) => {
      callback(OK);
      callback(failed('again'));
    });
    await expect(sink.deliver(batchOf(sink, denyEvents(1, 2)))).resolves.toBeUndefined();
    expect(warn).not.toHaveBeenCalled();
    await sink.stop();
  });

  it('turns an exporter that throws into a failed batch, and the next delivery still runs', async () => {
    let calls = 0;
    const { sink } = await sinkOver((_records, callback) => {
      calls++;
      if (calls === 1) throw new Error('boom');
      callback(OK);
    });
    const error = await settledWith(sink.deliver(batchOf(sink, denyEvents(1, 1))));
    expect((error as DeliveryError).cause).toEqual(new Error('boom'));
    await expect(sink.deliver(batchOf(sink, denyEvents(2, 1)))).resolves.toBeUndefined();
    expect(calls).toBe(2);
    await sink.stop();
  });

  it('fails the batch at timeoutMs + ackMarginMs instead of hanging; a late result is ignored, a late failure logged', async () => {
    vi.useFakeTimers();
    const callbacks: Array<(result: ExportResult) => void> = [];
    const { sink, debug } = await sinkOver((_records, callback) => void callbacks.push(callback));
    const events = denyEvents(1, 3);
    const delivery = settledWith(sink.deliver(batchOf(sink, events)));
    await vi.advanceTimersByTimeAsync(1_499);
    expect(callbacks).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const error = await delivery;
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).failedUids).toEqual(events.map((e) => e.uid));
    expect((error as DeliveryError).cause).toMatchObject({ code: 'EDGE_OTLP_ACK_TIMEOUT', message: 'no export result within 1500 ms' });

    callbacks[0]?.(failed('late'));
    expect(debug).toHaveBeenCalledWith({ records: 3, error: 'late', endpoint: 'http://localhost:4318/v1/logs' }, 'OTLP log export failed');
    const stopping = sink.stop();
    await vi.advanceTimersByTimeAsync(1_500);
    await stopping;
  });

  it('waits for an unanswered export before the next one, at most timeoutMs + ackMarginMs', async () => {
    vi.useFakeTimers();
    const callbacks: Array<(result: ExportResult) => void> = [];
    const { sink } = await sinkOver((_records, callback) => void callbacks.push(callback));
    const first = settledWith(sink.deliver(batchOf(sink, denyEvents(1, 1))));
    const second = settledWith(sink.deliver(batchOf(sink, denyEvents(2, 1))));
    await vi.advanceTimersByTimeAsync(1_500);
    expect(await first).toBeInstanceOf(DeliveryError);
    // The first export never called back: the second waits out its deadline once more, then goes.
    expect(callbacks).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(callbacks).toHaveLength(2);
    callbacks[1]?.(OK);
    expect(await second).toBeUndefined();
    await sink.stop();
  });

  it('ends at once when the signal aborts, with its reason as cause', async () => {
    const callbacks: Array<(result: ExportResult) => void> = [];
    const { sink } = await sinkOver((_records, callback) => void callbacks.push(callback));
    const controller = new AbortController();
    const delivery = settledWith(sink.deliver(batchOf(sink, denyEvents(1, 2)), controller.signal));
    await vi.waitFor(() => expect(callbacks).toHaveLength(1));
    controller.abort('stop');
    const error = await delivery;
    expect((error as DeliveryError).failedUids).toEqual(['req-0001', 'req-0002']);
    expect((error as DeliveryError).cause).toBe('stop');
    callbacks[0]?.(OK);
    await sink.stop();
  });
});
