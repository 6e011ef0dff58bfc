// Reading the deployment files the way their tools would: YAML (every
// document of a file), the Dockerfile's instructions by stage, .dockerignore
// patterns, and promtool for the Prometheus pieces.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const fromRoot = (...parts: string[]): string => join(ROOT, ...parts);
export const readText = (path: string): string => readFileSync(path, 'utf8');

/** Every file under `dir` (absolute paths), depth first, sorted. */
export function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    });
}

export const isYaml = (path: string): boolean => /\.ya?ml$/.test(path);

/** Repository-relative path with forward slashes. */
export const repoPath = (path: string): string => relative(ROOT, path).split(sep).join('/');

/** All documents of a YAML file; any error or warning of the parser is thrown with the file's name. */
export function yamlDocuments(path: string): unknown[] {
  const docs = parseAllDocuments(readText(path), { prettyErrors: true });
  if (!Array.isArray(docs)) return [];
  return docs.map((doc) => {
    const problems = [...doc.errors, ...doc.warnings];
    if (problems.length > 0) throw new Error(`${repoPath(path)}: ${problems.map((p) => p.message).join('; ')}`);
    return doc.toJS() as unknown;
  });
}

/** The single document of a YAML file. */
export function yamlDocument(path: string): unknown {
  const docs = yamlDocuments(path);
  if (docs.length !== 1) throw new Error(`${repoPath(path)}: expected one YAML document, found ${docs.length}`);
  return docs[0];
}

// --- Dockerfile -------------------------------------------------------------

export interface Instruction {
  /** Upper-case keyword: FROM, RUN, COPY, ... */
  readonly keyword: string;
  /** The rest of the instruction, continuation lines joined. */
  readonly args: string;
}

export interface Stage {
  readonly name: string | undefined;
  /** The FROM's image reference, ARGs not expanded. */
  readonly from: string;
  readonly instructions: readonly Instruction[];
}

interface Dockerfile {
  /** ARG instructions before the first FROM, name to default. */
  readonly globalArgs: ReadonlyMap<string, string | undefined>;
  readonly stages: readonly Stage[];
}

/** Comments dropped, `\` continuations joined, split into stages at each FROM. */
export function parseDockerfile(text: string): Dockerfile {
  const logical = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const globalArgs = new Map<string, string | undefined>();
  const stages: { name: string | undefined; from: string; instructions: Instruction[] }[] = [];
  for (const line of logical) {
    const match = /^(\S+)\s*(.*)$/.exec(line);
    if (!match) continue;
    const keyword = (match[1] ?? '').toUpperCase();
    const args = (match[2] ?? '').replace(/\s+/g, ' ');
    if (keyword === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      stages.push({ name: from?.[2], from: from?.[1] ?? args, instructions: [] });
    } else if (stages.length === 0 && keyword === 'ARG') {
      const [name, value] = args.split('=', 2);
      globalArgs.set(name ?? args, value);
    } else {
      stages.at(-1)?.instructions.push({ keyword, args });
    }
  }
  return { globalArgs, stages };
}

/** A JSON (exec form) argument list, or undefined for the shell form. */
export function execForm(args: string): string[] | undefined {
  if (!args.startsWith('[')) return undefined;
  const parsed = JSON.parse(args) as unknown;
  return Array.isArray(parsed) && parsed.every((a) => typeof a === 'string') ? parsed : undefined;
}

// --- .dockerignore ------------------------------------------------------------

/**
 * Whether a context path (forward slashes, relative) is sent to the builder:
 * the last pattern matching the path or one of its parent folders decides,
 * `!` re-includes, `*` stays within one segment and `**` spans any number.
 */
export function dockerignoreIncludes(patterns: readonly string[], path: string): boolean {
  const segments = path.split('/');
  const candidates = segments.map((_, i) => segments.slice(0, i + 1).join('/'));
  let included = true;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const pattern = (negated ? raw.slice(1) : raw).replace(/^\/+|\/+$/g, '');
    const regex = globRegex(pattern);
    if (candidates.some((candidate) => regex.test(candidate))) included = negated;
  }
  return included;
}

export function dockerignorePatterns(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

function globRegex(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern.charAt(i);
    if (char === '*' && pattern.charAt(i + 1) === '*') {
      // `**/` matches zero or more folders; a trailing `**` anything.
      source += pattern.charAt(i + 2) === '/' ? '(?:.*/)?' : '.*';
      i += pattern.charAt(i + 2) === '/' ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

// --- promtool -----------------------------------------------------------------

/** Runs promtool (PROMTOOL or PATH); a missing promtool fails the test, as in the rest of the suite. */
export function promtool(args: readonly string[]): { ok: boolean; output: string } {
  const bin = process.env.PROMTOOL ?? 'promtool';
  const result = spawnSync(bin, args, { encoding: 'utf8', timeout: 20_000 });
  if (result.error) {
    throw new Error(`${bin} could not run (${result.error.message}): run scripts/install-test-deps.sh (Debian package "prometheus") or set PROMTOOL`, {
      cause: result.error,
    });
  }
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}
