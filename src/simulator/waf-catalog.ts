// Vocabularies the WAF log generator draws from: matched rules, user agents,
// client locations and request targets. Plain data, no logic.

export type SeverityLevel = '高风险' | '中风险' | '低风险';
export const SEVERITY_ORDER: readonly SeverityLevel[] = ['低风险', '中风险', '高风险'];

export interface RuleSpec {
  readonly ruleId: string;
  readonly ruleMessage: string;
  readonly group: string;
  readonly severity: string;
  readonly severityLevel: SeverityLevel;
  /** The request target that trips the rule, and what the rule matched in it. */
  readonly uri?: string;
  readonly match?: { readonly variable: string; readonly value: string; readonly operator: string };
}

export const RULES: readonly RuleSpec[] = [
  {
    ruleId: '942100', ruleMessage: 'SQL Injection Attack Detected via libinjection', group: 'attack-sqli',
    severity: 'CRITICAL', severityLevel: '高风险', uri: "/search?q=1'%20OR%20'1'='1",
    match: { variable: 'ARGS:q', value: "1' OR '1'='1", operator: 'detectSQLi' },
  },
  {
    ruleId: '941100', ruleMessage: 'XSS Attack Detected via libinjection', group: 'attack-xss',
    severity: 'CRITICAL', severityLevel: '高风险', uri: '/comment?text=%3Cscript%3Ealert(1)%3C/script%3E',
    match: { variable: 'ARGS:text', value: '<script>alert(1)</script>', operator: 'detectXSS' },
  },
  {
    ruleId: '930110', ruleMessage: 'Path Traversal Attack (/../)', group: 'attack-lfi',
    severity: 'CRITICAL', severityLevel: '高风险', uri: '/download?file=../../etc/passwd',
    match: { variable: 'ARGS:file', value: '../../etc/passwd', operator: 'rx' },
  },
  {
    ruleId: '932160', ruleMessage: 'Remote Command Execution: Unix Shell Code Found', group: 'attack-rce',
    severity: 'CRITICAL', severityLevel: '高风险', uri: '/cgi-bin/run?cmd=/bin/bash',
  },
  { ruleId: '913100', ruleMessage: 'Found User-Agent associated with security scanner', group: 'attack-reputation-scanner', severity: 'WARNING', severityLevel: '中风险' },
  { ruleId: '920350', ruleMessage: 'Host header is a numeric IP address', group: 'protocol-violation', severity: 'WARNING', severityLevel: '中风险' },
  { ruleId: '100010', ruleMessage: 'CC 防护: 访问频率超过阈值', group: 'cc-protection', severity: 'WARNING', severityLevel: '中风险', uri: '/api/v1/login' },
  { ruleId: '920320', ruleMessage: 'Missing User Agent Header', group: 'protocol-violation', severity: 'NOTICE', severityLevel: '低风险' },
  { ruleId: '920300', ruleMessage: 'Request Missing an Accept Header', group: 'protocol-violation', severity: 'NOTICE', severityLevel: '低风险' },
];

export interface UaSpec {
  readonly header: string;
  /** Parsed user agent; null for tools the parser does not recognise. */
  readonly parsed: { readonly name: string; readonly version: string; readonly os_name: string; readonly os_version: string; readonly device: string } | null;
}

export const USER_AGENTS: readonly UaSpec[] = [
  {
    header: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    parsed: { name: 'Chrome', version: '124.0.0.0', os_name: 'Windows', os_version: '10', device: 'Other' },
  },
  {
    header: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    parsed: { name: 'Mobile Safari', version: '17.4', os_name: 'iOS', os_version: '17.4', device: 'iPhone' },
  },
  {
    header: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
    parsed: { name: 'Chrome Mobile', version: '124.0.0.0', os_name: 'Android', os_version: '14', device: 'Pixel 8' },
  },
  {
    header: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
    parsed: { name: 'Firefox', version: '125.0', os_name: 'Linux', os_version: '', device: 'Other' },
  },
  { header: 'sqlmap/1.8#stable (https://sqlmap.org)', parsed: null },
  { header: 'curl/8.5.0', parsed: null },
  { header: 'python-requests/2.31.0', parsed: null },
];

export interface GeoSpec {
  readonly country_name: string;
  readonly city_name: string;
  readonly region_name: string;
  readonly timezone: string;
  readonly country_code2: string;
}

export const GEOS: readonly GeoSpec[] = [
  { country_name: '中国', city_name: '广州', region_name: '广东', timezone: 'Asia/Shanghai', country_code2: 'CN' },
  { country_name: '中国', city_name: '上海', region_name: '上海', timezone: 'Asia/Shanghai', country_code2: 'CN' },
  { country_name: '中国', city_name: '北京', region_name: '北京', timezone: 'Asia/Shanghai', country_code2: 'CN' },
  { country_name: '中国', city_name: '深圳', region_name: '广东', timezone: 'Asia/Shanghai', country_code2: 'CN' },
  { country_name: '美国', city_name: '洛杉矶', region_name: '加利福尼亚州', timezone: 'America/Los_Angeles', country_code2: 'US' },
  { country_name: '日本', city_name: '东京', region_name: '东京都', timezone: 'Asia/Tokyo', country_code2: 'JP' },
  { country_name: '新加坡', city_name: '新加坡', region_name: '新加坡', timezone: 'Asia/Singapore', country_code2: 'SG' },
  { country_name: '德国', city_name: '法兰克福', region_name: '黑森州', timezone: 'Europe/Berlin', country_code2: 'DE' },
];

export const BENIGN_URIS = ['/', '/index.html', '/api/v1/items?page=2', '/login', '/static/app.js', '/video/live.m3u8?token=abc'] as const;
export const PASS_CODES = [200, 200, 200, 206, 301, 304, 403, 404, 500] as const;
