// The resource and the scope of exported records carry the schema URL of the
// semantic-conventions release whose names the records use: the version of
// the installed @opentelemetry/semantic-conventions (it is generated from that
// release). Decoded from what a receiver gets, over both encodings.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OtlpLogSink } from '../../../src/exporters/otel-logs/index.js';
import type { OtlpProtocol } from '../../../src/exporters/otel-logs/options.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../support/otlp-receiver.js';
import { docList } from '../../support/doc-list.js';
import { batchOf, denyEvent, startedSink } from './fixtures.js';

// The package's exports map hides its package.json from require.resolve.
const SEMCONV_PACKAGE = join(resolve(import.meta.dirname, '../../..'), 'node_modules/@opentelemetry/semantic-conventions/package.json');
const semconv = JSON.parse(readFileSync(SEMCONV_PACKAGE, 'utf8')) as { version: string };
const SCHEMA_URL = `https://opentelemetry.io/schemas/${semconv.version}`;

describe.each(['http/protobuf', 'http/json'] as const)('schema_url over %s', (protocol: OtlpProtocol) => {
  let receiver: OtlpReceiver;
  let sink: OtlpLogSink;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    sink = await startedSink(receiver.url, { protocol });
  });
  afterAll(async () => {
    await sink.stop();
    await receiver.close();
  });

  it('is set on the resource and on the scope, to the installed conventions’ release', async () => {
    await sink.deliver(batchOf(sink, [denyEvent(1)]));
    const [record] = receiver.records();
    expect(record?.resourceSchemaUrl).toBe(SCHEMA_URL);
    expect(record?.scope.schemaUrl).toBe(SCHEMA_URL);
    expect(Object.keys(record?.resource ?? {}).sort()).toEqual([...docList('docs/waf-events.md', 'resource-attributes')].sort());
  });
});
