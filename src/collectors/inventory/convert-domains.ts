// Domains from listDomains: info, state set, SSL flag, certificate expiry.
// Pure: parsed rows in, gauge samples out.
import type { ListDomainsAnswer, PlatformClock } from '../../api/index.js';
import {
  DOMAIN_CERT_EXPIRY,
  DOMAIN_FAMILIES,
  DOMAIN_INFO,
  DOMAIN_SSL_ENABLED,
  DOMAIN_STATE,
} from './metrics.js';
import { SampleSet, type Converted } from './sample-set.js';

export type DomainRow = ListDomainsAnswer['rows'][number];

/**
 * The CNAME a domain points at. The document lists cNamePre and cNameSuf
 * without saying how they join; the suffix is a domain, so they are joined
 * with one dot whether or not either side already carries it.
 */
export function domainCname(pre: string | null | undefined, suf: string | null | undefined): string {
  const head = (pre ?? '').trim().replace(/\.+$/, '');
  const tail = (suf ?? '').trim().replace(/^\.+/, '');
  if (head === '' || tail === '') return head + tail;
  return `${head}.${tail}`;
}

export function convertDomains(rows: readonly DomainRow[], tz: PlatformClock): Converted {
  const out = new SampleSet(DOMAIN_FAMILIES);
  for (const row of out.unique(rows, (r) => r.domainName, DOMAIN_INFO.name, 'domainName')) {
    const domain = { domain: row.domainName };
    out.addGauge(DOMAIN_INFO, { ...domain, package: row.doid, cname: domainCname(row.cNamePre, row.cNameSuf) }, 1);
    out.stateSet(DOMAIN_STATE, domain, row.isActive, row.domainName);
    // Only "1" is documented ("SSL configured"); anything else is read as not configured.
    const ssl = row.sslsupport.trim();
    if (ssl !== '0' && ssl !== '1') {
      out.issue({ family: DOMAIN_SSL_ENABLED.name, key: row.domainName, field: 'sslsupport', value: row.sslsupport, reason: 'undocumented value, exported as 0' });
    }
    out.addGauge(DOMAIN_SSL_ENABLED, domain, ssl === '1' ? 1 : 0);
    out.timestamp(DOMAIN_CERT_EXPIRY, domain, row.certEndTime, row.domainName, tz);
  }
  return out.build();
}
