// The package version, read from package.json (two levels up from both src/cli and dist/cli).
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** `edge-exporter --version`: the version alone on the first line (for scripts), then the runtime a bug report needs. */
export function versionText(): string {
  return `edge-exporter ${packageVersion()}\nnode ${process.version} (${process.platform}/${process.arch})`;
}
