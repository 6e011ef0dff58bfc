// OTLP/HTTP metrics as a push protocol: the pages as one ExportMetricsServiceRequest, protobuf or JSON, by
// the OpenTelemetry SDK's own serializers (no hand-written encoder), with the content type each needs.
import { JsonMetricsSerializer, ProtobufMetricsSerializer } from '@opentelemetry/otlp-transformer';
import type { PushProtocol } from '../push/sender.js';
import { InternalError } from '../../shared/errors.js';
import { toResourceMetrics, type OtlpPage, type PointsContext } from './points.js';

export type OtlpMetricsEncoding = 'http/protobuf' | 'http/json';

export function otlpMetricsProtocol(encoding: OtlpMetricsEncoding, context: PointsContext): PushProtocol {
  const serializer = encoding === 'http/json' ? JsonMetricsSerializer : ProtobufMetricsSerializer;
  return {
    name: 'OTLP metrics',
    headers: { 'content-type': encoding === 'http/json' ? 'application/json' : 'application/x-protobuf' },
    encode: (pages) => {
      const body = serializer.serializeRequest(toResourceMetrics(pages as readonly OtlpPage[], context));
      if (body === undefined) throw new InternalError('OTLP metrics: the serializer returned no body');
      return body;
    },
  };
}
