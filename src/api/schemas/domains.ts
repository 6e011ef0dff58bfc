// Operations 2 and 13: setting a certificate on many domains, and the domain list.
import { z } from 'zod';
import {
  envelope,
  int64,
  looseInt,
  looseText,
  openObject,
  pageNumber,
  pagedList,
  requiredSearchFilter,
} from './common.js';

export const DOMAIN_ACTIVE_CODES = ['0', '1', '2'] as const;
/** The documented labels plus `oid`, which the sample request uses. */
const DOMAIN_FILTER_LABELS = ['domainName', 'port', 'doid', 'customerRemark', 'oid'] as const;
/** 0 HTTP, 1 follow the client's protocol. */
const ORIGIN_PROTOCOLS = [0, 1] as const;
/** 0 self-owned certificate (sent inline), 1 managed certificate (by certId). */
const CERT_SOURCES = [0, 1] as const;

// ----------------------------------------------- 2. batchUpdateDomainCertInfo

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const absent = (value: unknown): boolean => value === undefined || value === '';

export const batchUpdateDomainCertInfoRequest = z
  .looseObject({
    // An empty batch would change nothing; it is almost certainly a caller bug.
    domainIdList: z.array(int64).min(1, 'at least one domain ID is required'),
    protocol: z.literal(ORIGIN_PROTOCOLS),
    source: z.literal(CERT_SOURCES),
    certId: int64.optional(),
    sslCert: z.string().optional(),
    sslKey: z.string().optional(),
  })
  .superRefine(
    (body, ctx) => {
      if (body.source === 1 && body.certId === undefined) {
        ctx.addIssue({ code: 'custom', path: ['certId'], message: 'certId is required when source is 1 (managed certificate)' });
      }
      if (body.source === 0) {
        for (const key of ['sslCert', 'sslKey'] as const) {
          if (absent(body[key])) {
            ctx.addIssue({ code: 'custom', path: [key], message: `${key} is required when source is 0 (self-owned certificate)` });
          }
        }
      }
    },
    // Run even when another field is wrong, so every problem is reported at once;
    // the checks above only read `source` and presence, which is safe on bad input.
    { when: (payload) => isObject(payload.value) },
  );

export const batchUpdateDomainCertInfoAnswer = envelope;

// ---------------------------------------------------------- 13. listDomains

export const listDomainsRequest = z.looseObject({
  filters: z.array(requiredSearchFilter(DOMAIN_FILTER_LABELS)),
  searchHeader: z.looseObject({ isActive: z.array(z.enum(DOMAIN_ACTIVE_CODES)) }),
  pageNum: pageNumber.optional(),
  pageSize: pageNumber.optional(),
  country: z.string().optional(),
  domainId: int64.optional(),
  params: openObject.optional(),
  searchValue: z.string().optional(),
  tableCul: z.record(z.string(), z.string()).optional(),
});

/** Codes that the document types as strings ("1", "0") and samples may send as numbers. */
const codeText = looseText;

const domainRow = z.looseObject({
  id: looseInt,
  sslsupport: codeText,
  domainName: z.string(),
  /** Origin addresses, newline-separated in the sample. */
  ip: z.string(),
  port: codeText,
  cNamePre: z.string().nullish(),
  cNameSuf: z.string().nullish(),
  doid: z.string(),
  isActive: codeText,
  customerRemark: z.string().nullish(),
  alias: z.string().nullish(),
  coreId: codeText.nullish(),
  waf: codeText.nullish(),
  stopTime: z.string().nullish(),
  updateTime: z.string().nullish(),
  certEndTime: z.string().nullish(),
  wafInternalRulesList: z.unknown().optional(),
});

export const listDomainsAnswer = pagedList(domainRow);
