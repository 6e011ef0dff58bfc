// Hosted certificates from describeHosting: info, status set, expiry.
// Pure: parsed rows in, gauge samples out.
import type { DescribeHostingAnswer, PlatformClock } from '../../api/index.js';
import {
  CERTIFICATE_EXPIRY,
  CERTIFICATE_FAMILIES,
  CERTIFICATE_INFO,
  CERTIFICATE_STATUS,
} from './metrics.js';
import { SampleSet, type Converted } from './sample-set.js';

export type CertificateRow = DescribeHostingAnswer['rows'][number];

/**
 * The States table lists 0-4 but describes "pending verification" as
 * "remainder 1 when the status code is divided by 10", so a two-digit code
 * ending in 1 (11, 21, ...) is read as pending verification. No other code
 * carries that remark; other undocumented codes stay unknown.
 */
export function certificateStatusCode(status: number): number {
  return status >= 10 && status % 10 === 1 ? 1 : status;
}

export function convertCertificates(rows: readonly CertificateRow[], tz: PlatformClock): Converted {
  const out = new SampleSet(CERTIFICATE_FAMILIES);
  for (const row of out.unique(rows, (r) => String(r.certId), CERTIFICATE_INFO.name, 'certId')) {
    const id = String(row.certId);
    const certId = { cert_id: id };
    out.addGauge(CERTIFICATE_INFO, {
      ...certId, alias: row.alias ?? '', subject: row.subjectDN ?? '', issuer: row.issuerDN ?? '',
    }, 1);
    out.stateSet(CERTIFICATE_STATUS, certId, certificateStatusCode(row.status), id);
    out.timestamp(CERTIFICATE_EXPIRY, certId, row.endTime, id, tz);
  }
  return out.build();
}
