// Why a file could not be read or written (or a port bound), in words a person
// reads, with the code beside it for a search: `no such file or directory
// (ENOENT)`. The words are libuv's own (util.getSystemErrorMap), so every code Node can raise has
// them and none is translated by hand.
import { getSystemErrorMap } from 'node:util';

/** `permission denied (EACCES)`; the code alone when libuv has no words for it; 'unknown error' without a code. */
export function errnoText(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  if (code === undefined) return 'unknown error';
  const words = wordsFor(code);
  return words === undefined ? code : `${words} (${code})`;
}

function wordsFor(code: string): string | undefined {
  for (const [name, message] of getSystemErrorMap().values()) if (name === code) return message;
  return undefined;
}
