// Parses the config text with `yaml`, keeping the document so problems found
// later (by the schema) can be pointed at a line and column in the file.
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document, Node } from 'yaml';
import type { YamlPath } from './env.js';

export interface Position {
  line: number;
  col: number;
}

export interface YamlSource {
  /** The document as plain data; undefined for an empty file. */
  readonly data: unknown;
  /** Syntax errors, each with its position; when non-empty `data` is meaningless. */
  readonly errors: readonly { message: string; position: Position }[];
  /** Position of the key (or sequence item) deepest along `path` that exists in the file. */
  locate(path: YamlPath): Position | undefined;
}

export function parseYaml(text: string): YamlSource {
  const lineCounter = new LineCounter();
  // prettyErrors off: the pretty form quotes the offending source line, which may hold a token.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const toPosition = (offset: number): Position => lineCounter.linePos(offset);
  const errors = doc.errors.map((err) => ({ message: syntaxMessage(err.message), position: toPosition(err.pos[0]) }));
  let data: unknown;
  if (errors.length === 0) {
    try {
      data = (doc.toJS({ maxAliasCount: 100 }) as unknown) ?? undefined;
    } catch (err) {
      // Only alias expansion fails here (a "billion laughs" document).
      errors.push({ message: syntaxMessage(err instanceof Error ? err.message : String(err)), position: toPosition(0) });
    }
  }
  return {
    data,
    errors,
    locate(path) {
      const offset = locateOffset(doc, path);
      return offset === undefined ? undefined : toPosition(offset);
    },
  };
}

function syntaxMessage(message: string): string {
  return `YAML syntax error: ${message.charAt(0).toLowerCase()}${message.slice(1)}`;
}

function locateOffset(doc: Document, path: YamlPath): number | undefined {
  let node: unknown = doc.contents;
  let offset: number | undefined;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) break;
      offset = (isScalar(pair.key) ? pair.key.range?.[0] : undefined) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item: unknown = node.items[segment];
      if (!isNode(item)) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else {
      break;
    }
  }
  return offset;
}

function isNode(value: unknown): value is Node {
  return isScalar(value) || isMap(value) || isSeq(value) || isAlias(value);
}
