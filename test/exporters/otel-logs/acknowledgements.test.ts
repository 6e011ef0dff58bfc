import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeliveryError } from '../../../src/collectors/log-sink.js';
import { AcknowledgementTimeout, Acknowledgements } from '../../../src/exporters/otel-logs/acknowledgements.js';
import { ConfirmingExporter } from '../../../src/exporters/otel-logs/confirming-exporter.js';
import { OtlpLogSink } from '../../../src/exporters/otel-logs/index.js';
import { RESOURCE, denyEvents } from './fixtures.js';

const OK: ExportResult = { code: ExportResultCode.SUCCESS };
const failed = (message: string): ExportResult => ({ code: ExportResultCode.FAILED, error: new Error(message) });

describe('Acknowledgements', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves with no failures once every uid is acknowledged SUCCESS', async () => {
    const acks = new Acknowledgements();
    const settled = acks.expect(['a', 'b', 'c'], 1_000);
    acks.settle(['b', 'a'], OK);
    expect(acks.pending).toBe(1);
    acks.settle(['c', 'unknown'], OK);
    await expect(settled).resolves.toEqual({ failed: [], cause: undefined });
    expect(acks.pending).toBe(0);
  });

  it('lists failed uids in the expected order, with the first error as cause', async () => {
    const acks = new Acknowledgements();
    const settled = acks.expect(['a', 'b', 'c'], 1_000);
    acks.settle(['c'], failed('first'));
    acks.settle(['b'], OK);
    acks.settle(['a'], failed('second'));
    await expect(settled).resolves.toEqual({ failed: ['a', 'c'], cause: new Error('first') });
  });

  it('fails what is unacknowledged at the deadline and ignores late results', async () => {
    const acks = new Acknowledgements();
    const settled = acks.expect(['a', 'b'], 1_000);
    acks.settle(['a'], OK);
    await vi.advanceTimersByTimeAsync(1_000);
    const { failed: uids, cause } = await settled;
    expect(uids).toEqual(['b']);
    expect(cause).toBeInstanceOf(AcknowledgementTimeout);
    acks.settle(['b'], OK);
    expect(acks.pending).toBe(0);
  });

  it('ends at once on abort, already aborted or not', async () => {
    const acks = new Acknowledgements();
    const controller = new AbortController();
    const settled = acks.expect(['a'], 1_000, controller.signal);
    controller.abort('stop');
    await expect(settled).resolves.toEqual({ failed: ['a'], cause: 'stop' });
    await expect(acks.expect(['b'], 1_000, controller.signal)).resolves.toEqual({ failed: ['b'], cause: 'stop' });
    expect(acks.pending).toBe(0);
  });

  it('refuses a uid someone already awaits', async () => {
    const acks = new Acknowledgements();
    void acks.expect(['a'], 1_000);
    await expect(acks.expect(['a', 'b'], 1_000)).rejects.toThrow(/already awaited: a/);
  });
});

describe('ConfirmingExporter', () => {
  const record = (uid: string): ReadableLogRecord => ({ attributes: { 'log.record.uid': uid } }) as Partial<ReadableLogRecord> as ReadableLogRecord;
  const delegate = (exportFn: LogRecordExporter['export']): LogRecordExporter => ({
    export: exportFn,
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  });

  it('reports the delegate’s result once, with the batch’s uids', () => {
    const outcomes: Array<[readonly string[], ExportResult]> = [];
    const results: ExportResult[] = [];
    const exporter = new ConfirmingExporter(
      delegate((_records, callback) => {
        callback(OK);
        callback(failed('again'));
      }),
      (uids, result) => outcomes.push([uids, result]),
    );
    exporter.export([record('a'), record('b')], (result) => results.push(result));
    expect(outcomes).toEqual([[['a', 'b'], OK]]);
    expect(results).toEqual([OK]);
  });

  it('turns a throwing delegate into FAILED', () => {
    const outcomes: ExportResult[] = [];
    const exporter = new ConfirmingExporter(
      delegate(() => {
        throw new Error('boom');
      }),
      (_uids, result) => outcomes.push(result),
    );
    exporter.export([record('a')], () => undefined);
    expect(outcomes).toEqual([failed('boom')]);
  });
});

describe('OtlpLogSink with an exporter that never answers', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fails the batch at timeoutMs + ackMarginMs instead of hanging, and logs nothing secret', async () => {
    vi.useFakeTimers();
    const callbacks: Array<(result: ExportResult) => void> = [];
    const warn = vi.fn();
    const sink = new OtlpLogSink(
      { resource: RESOURCE, timeoutMs: 1_000, ackMarginMs: 500, headers: { authorization: 'Bearer secret' }, logger: { debug: vi.fn(), warn } },
      {
        exporter: {
          export: (_records, callback) => void callbacks.push(callback),
          forceFlush: () => Promise.resolve(),
          shutdown: () => Promise.resolve(),
        },
      },
    );
    await sink.start();
    const events = denyEvents(1, 3);
    const delivery = sink.deliver(events).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1_499);
    expect(callbacks).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const error = await delivery;
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).failedUids).toEqual(events.map((e) => e.uid));
    expect((error as DeliveryError).cause).toBeInstanceOf(AcknowledgementTimeout);

    // A result arriving late is ignored; a failed one is logged, without headers.
    callbacks[0]?.(failed('late'));
    expect(warn).toHaveBeenCalledWith({ records: 3, message: 'late' }, 'OTLP log export failed');
    expect(JSON.stringify(warn.mock.calls)).not.toMatch(/secret/);
    const stopping = sink.shutdown();
    await vi.advanceTimersByTimeAsync(1_500);
    await stopping;
  });
});
