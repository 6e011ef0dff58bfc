// Chooses the exposition format from an HTTP Accept header.
import type { ExpositionFormat } from './serialize.js';

/** OpenMetrics versions our 1.0.0 output satisfies (Prometheus also asks for 0.0.1, an identical draft). */
const OPENMETRICS_VERSIONS = new Set(['1.0.0', '0.0.1']);

/**
 * OpenMetrics only when the header asks for application/openmetrics-text (a
 * version we serve, q > 0) at least as strongly as for anything else we
 * serve; otherwise, and for a missing or unparsable header, the text format.
 * On equal q the earlier entry wins.
 */
export function negotiate(accept: string | undefined): ExpositionFormat {
  if (accept === undefined) return 'text';
  let best: { format: ExpositionFormat; q: number } | undefined;
  for (const entry of accept.split(',')) {
    const [mediaType = '', ...params] = entry.split(';');
    let q = 1;
    let version: string | undefined;
    for (const param of params) {
      const [key = '', value = ''] = param.split('=');
      const name = key.trim().toLowerCase();
      const text = value.trim().replace(/^"(.*)"$/, '$1');
      if (name === 'q') q = /^\d+(\.\d*)?$/.test(text) ? Number(text) : 0;
      else if (name === 'version') version = text;
    }
    const format = formatOf(mediaType.trim().toLowerCase(), version);
    if (format === undefined || q <= 0) continue;
    if (best === undefined || q > best.q) best = { format, q };
  }
  return best?.format ?? 'text';
}

function formatOf(mediaType: string, version: string | undefined): ExpositionFormat | undefined {
  if (mediaType === 'application/openmetrics-text') {
    return version === undefined || OPENMETRICS_VERSIONS.has(version) ? 'openmetrics' : undefined;
  }
  return mediaType === 'text/plain' || mediaType === 'text/*' || mediaType === '*/*' ? 'text' : undefined;
}
