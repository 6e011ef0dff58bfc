// OTLP/HTTP metrics as a push protocol: the pages as one ExportMetricsServiceRequest, protobuf or JSON, by
// the OpenTelemetry SDK's own serializers (no hand-written encoder), with the content type each needs.
import { gzipSync } from 'node:zlib';
import { JsonMetricsSerializer, ProtobufMetricsSerializer } from '@opentelemetry/otlp-transformer';
import type { PushProtocol } from '../push/sender.js';
import { InternalError } from '../../shared/errors.js';
import { toResourceMetrics, type OtlpPage, type PointsContext } from './points.js';

export type OtlpMetricsEncoding = 'http/protobuf' | 'http/json';

/** Request body compression, as OTLP/HTTP defines it (gzip, said in Content-Encoding). */
export type OtlpCompression = 'none' | 'gzip';

export function otlpMetricsProtocol(encoding: OtlpMetricsEncoding, context: PointsContext, compression: OtlpCompression = 'none'): PushProtocol {
  const serializer = encoding === 'http/json' ? JsonMetricsSerializer : ProtobufMetricsSerializer;
  const contentType = encoding === 'http/json' ? 'application/json' : 'application/x-protobuf';
  return {
    name: 'OTLP metrics',
    headers: compression === 'gzip' ? { 'content-type': contentType, 'content-encoding': 'gzip' } : { 'content-type': contentType },
    encode: (pages) => {
      const body = serializer.serializeRequest(toResourceMetrics(pages as readonly OtlpPage[], context));
      if (body === undefined) throw new InternalError('OTLP metrics: the serializer returned no body');
      // Once per request, not per retry: the sender keeps the body it encoded.
      return compression === 'gzip' ? gzipSync(body) : body;
    },
  };
}
