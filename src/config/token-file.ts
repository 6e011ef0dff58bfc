// `upstream.token_file`: read at load (the top level's, and each account's
// with `accounts:`), and again by the daemon when the upstream answers 401.
// Problems never include the content.
import { readFileSync } from 'node:fs';
import type { PathProblem, YamlPath } from './env.js';
import { isUsableSecret } from './fields.js';
import { errnoText } from '../shared/errno-text.js';

/**
 * Reads the token_file of the upstream section at `path` (`['upstream']`,
 * `['accounts', 1, 'upstream']`) of the unvalidated document, when it is the
 * token's source.
 */
export function tokenFromUpstream(document: unknown, path: YamlPath): { token?: string; problems: PathProblem[] } {
  const upstream = path.reduce<unknown>(get, document);
  const file = get(upstream, 'token_file');
  if (typeof file !== 'string' || file === '' || get(upstream, 'token') !== undefined) return { problems: [] };
  const read = readTokenFile(file);
  if (read.problem === undefined) return { token: read.token, problems: [] };
  return { ...(read.token === undefined ? {} : { token: read.token }), problems: [{ path: [...path, 'token_file'], message: read.problem }] };
}

/** What {@link readTokenFile} found: the token, or a problem that never includes the content (`token` is then what to mask, if anything was read). */
type TokenFileRead = { token: string; problem?: undefined } | { token?: string; problem: string };

/**
 * Reads a token file as upstream.token_file is read at load: the content
 * trimmed, one line without control characters, not empty. Also what the
 * daemon reads again when the upstream answers 401.
 */
export function readTokenFile(file: string): TokenFileRead {
  let content: string;
  try {
    content = readFileSync(file, 'utf8').trim();
  } catch (err) {
    return { problem: `cannot read the token file ${file}: ${errnoText(err)}` };
  }
  if (!isUsableSecret(content)) {
    return { token: content, problem: content === '' ? 'the token file is empty' : 'the token file must hold one line without control characters' };
  }
  return { token: content };
}

function get(value: unknown, key: string | number): unknown {
  if (Array.isArray(value)) return typeof key === 'number' ? (value[key] as unknown) : undefined;
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
