// Shared by the config tests: load inline YAML and capture the ConfigError.
import { expect } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import type { ConfigProblem } from '../../src/config/errors.js';
import { loadConfig } from '../../src/config/load.js';
import type { LoadConfigOptions } from '../../src/config/load.js';

export function loadError(opts: LoadConfigOptions): ConfigError {
  try {
    loadConfig({ env: {}, ...opts });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    if (err instanceof ConfigError) return err;
  }
  throw new Error('expected loadConfig to throw a ConfigError');
}

export function problemAt(err: ConfigError, path: string): ConfigProblem {
  const problem = err.problems.find((p) => p.path === path);
  if (!problem) throw new Error(`no problem at ${path}; got:\n${err.message}`);
  return problem;
}

/** Lines joined with newlines, so YAML in tests keeps its indentation visible. */
export const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;
