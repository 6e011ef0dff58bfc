// The one error loading the configuration can throw: every problem found, each
// with the YAML path and, where the value came from, a file position or the
// environment variable. Callers match on `code`.
import { EdgeError } from '../shared/errors.js';

export interface ConfigProblem {
  /** Dotted YAML path such as `upstream.retry.attempts` (sequence indexes as numbers); '' for the whole file. */
  readonly path: string;
  /** What is wrong. Never contains a secret's value. */
  readonly message: string;
  /** 1-based line of the offending key in the config file, when the value came from the file. */
  readonly line?: number;
  /** 1-based column, with `line`. */
  readonly col?: number;
  /** Environment variable that supplied the value, when it came from the environment. */
  readonly env?: string;
}

export class ConfigError extends EdgeError {
  readonly code = 'EDGE_CONFIG';
  readonly problems: readonly ConfigProblem[];
  /** Config file as given, or `<config>` for inline text. */
  readonly source: string;

  constructor(source: string, problems: readonly ConfigProblem[], options?: { cause?: unknown }) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(`invalid configuration (${count}):\n${problems.map((p) => `  ${formatProblem(source, p)}`).join('\n')}`, options);
    this.source = source;
    this.problems = problems;
  }
}

/** `config.yaml:12:5 upstream.retry.attempts: expected a number >= 1` */
function formatProblem(source: string, problem: ConfigProblem): string {
  const where =
    problem.env !== undefined
      ? `$${problem.env}`
      : problem.line !== undefined
        ? `${source}:${problem.line}:${problem.col ?? 1}`
        : source;
  return problem.path === '' ? `${where}: ${problem.message}` : `${where} ${problem.path}: ${problem.message}`;
}

