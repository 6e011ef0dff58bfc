// `<section>.proxy_url_file` of every outbound client's section (and of each
// `accounts:` entry's upstream): read at load
// (so again at every reload), its content checked like proxy_url, and turned
// with the environment into each client's route (endpoints.ts). Problems
// never quote the content.
import { readFileSync } from 'node:fs';
import type { PathProblem, YamlPath } from './env.js';
import { isProxyUrl } from './fields.js';
import type { z } from 'zod';
import type { configSchema } from './schema.js';
import { OUTBOUND_NAMES, proxyCredentials, type OutboundName } from '../outbound/index.js';
import { errnoText } from '../shared/errno-text.js';

type Parsed = z.output<typeof configSchema>;
type ProxySection = OutboundName;

/** The variables a proxy URL (and its credentials) may come from. */
export const PROXY_VARIABLES: readonly string[] = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'];

interface ProxyFiles {
  /** The URL each section's proxy_url_file holds, where one is set and usable. */
  readonly urls: Partial<Record<ProxySection, string>>;
  readonly problems: PathProblem[];
  /** What to mask in messages: the credentials of whatever was read. */
  readonly secrets: string[];
}

export function readProxyFiles(document: unknown): ProxyFiles {
  const urls: Partial<Record<ProxySection, string>> = {};
  const problems: PathProblem[] = [];
  const secrets: string[] = [];
  for (const section of OUTBOUND_NAMES) {
    const url = readProxyFile(get(document, section), [section], problems, secrets);
    if (url !== undefined) urls[section] = url;
  }
  return { urls, problems, secrets };
}

/** With `accounts:`, each entry's upstream.proxy_url_file (on the merged document), by the entry's index. */
export function readAccountProxyFiles(document: unknown): { urls: (string | undefined)[]; problems: PathProblem[]; secrets: string[] } {
  const entries = get(document, 'accounts');
  const problems: PathProblem[] = [];
  const secrets: string[] = [];
  const urls = Array.isArray(entries)
    ? entries.map((entry: unknown, i) => readProxyFile(get(entry, 'upstream'), ['accounts', i, 'upstream'], problems, secrets))
    : [];
  return { urls, problems, secrets };
}

/** The URL the proxy_url_file of the section at `path` holds, when one is set and usable; problems and secrets are added to. */
function readProxyFile(section: unknown, path: YamlPath, problems: PathProblem[], secrets: string[]): string | undefined {
  const file = get(section, 'proxy_url_file');
  if (typeof file !== 'string' || file === '') return undefined;
  const at = [...path, 'proxy_url_file'];
  let content: string;
  try {
    content = readFileSync(file, 'utf8').trim();
  } catch (err) {
    problems.push({ path: at, message: `cannot read the proxy URL file ${file}: ${errnoText(err)}` });
    return undefined;
  }
  secrets.push(...proxyCredentials(content));
  if (isProxyUrl(content)) return content;
  problems.push({ path: at, message: content === '' ? 'the proxy URL file is empty' : 'the proxy URL file must hold one http:// or https:// URL' });
  return undefined;
}

/** The sections with proxy_url set from their file. */
export function withProxyFiles(config: Parsed, urls: ProxyFiles['urls']): Pick<Parsed, ProxySection> {
  const set = <S extends ProxySection>(section: S): Parsed[S] => {
    const url = urls[section];
    return url === undefined ? config[section] : { ...config[section], proxy_url: url };
  };
  return { upstream: set('upstream'), otlp: set('otlp'), otlp_metrics: set('otlp_metrics'), remote_write: set('remote_write') };
}

function get(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}
