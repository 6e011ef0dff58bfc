// path_prefix: the document writes operations 9-13 without the /prod-api
// prefix every other path has, and does not say whether it applies to them.
// The read ones (9, 10, 13) are asked at every spelling (the configured one
// first) and the check names the one that answers. 11 and 12 are writes and
// are never sent; the note says they most likely take the same form.
import { NotFoundError, OPERATIONS, type OperationName } from '../api/index.js';
import { valueOf, whyNot, type Answer, type Prober } from './probe.js';
import type { DoctorSetup } from './setup.js';
import { combine, type CheckResult, type Part } from './types.js';

type PathOperation = 'listLayer4Packages' | 'getPackageDetails' | 'listDomains';

interface FormTry {
  readonly path: string;
  readonly answer: Answer<unknown>;
}

interface PathProbe {
  readonly operation: PathOperation;
  readonly configured: string;
  /** The configured path first, then the other spellings. */
  readonly tries: readonly FormTry[];
  /** Why the operation was not asked (getPackageDetails without a known package). */
  readonly skipped?: string;
}

/** The configured path, the default (with /prod-api) and the documented one (without), each once. */
function spellings(operation: OperationName, configured: string): string[] {
  const spec = OPERATIONS[operation];
  return [...new Set([configured, spec.path, spec.documentedPath ?? spec.path])];
}

async function tryForms(prober: Prober, setup: DoctorSetup, operation: PathOperation, ask: (path: string) => Promise<Answer<unknown>>): Promise<PathProbe> {
  const configured = setup.paths[operation];
  const tries: FormTry[] = [];
  // One after the other: a refusal on the first must stop the second.
  for (const path of spellings(operation, configured)) tries.push({ path, answer: await ask(path) });
  return { operation, configured, tries };
}

/** listDomains always (target discovery reads it); the layer-4 pair when the inventory runs. */
export async function gatherPaths(prober: Prober, setup: DoctorSetup): Promise<PathProbe[]> {
  const domains = tryForms(prober, setup, 'listDomains', (path) =>
    prober.ask('listDomains', { filters: [], searchHeader: { isActive: [] }, pageNum: 1, pageSize: 10 }, path));
  if (!setup.inventory) return [await domains];
  const layer4 = (async (): Promise<PathProbe[]> => {
    let oid: string | undefined;
    const list = await tryForms(prober, setup, 'listLayer4Packages', async (path) => {
      const answer = await prober.ask('listLayer4Packages', { pageNum: 1, pageSize: 10 }, path);
      oid ??= valueOf(answer)?.rows[0]?.oid;
      return answer;
    });
    if (!setup.inventory?.details) return [list];
    const known = oid;
    if (known === undefined) {
      return [list, { operation: 'getPackageDetails', configured: setup.paths.getPackageDetails, tries: [], skipped: 'no layer-4 package listed to ask about' }];
    }
    const details = await tryForms(prober, setup, 'getPackageDetails', (path) => prober.ask('getPackageDetails', { oid: known }, path));
    return [list, details];
  })();
  const [d, l] = await Promise.all([domains, layer4]);
  return [...l, d];
}

function outcome(answer: Answer<unknown>): string {
  if (answer.kind === 'answer') return 'answers';
  if (answer.kind === 'failed' && answer.error instanceof NotFoundError) return 'HTTP 404';
  return whyNot(answer);
}

function judgeOne(probe: PathProbe): Part {
  const { operation, configured, tries } = probe;
  if (probe.skipped !== undefined) return { verdict: 'unknown', observed: `${operation}: not asked (${probe.skipped})` };
  const seen = tries.map((t) => `${t.path} ${outcome(t.answer)}`).join(', ');
  const mine = tries.find((t) => t.path === configured)?.answer;
  if (mine?.kind === 'answer') return { verdict: 'ok', observed: `${operation}: ${seen}` };
  const other = tries.find((t) => t.answer.kind === 'answer');
  const missing = mine?.kind === 'failed' && mine.error instanceof NotFoundError;
  if (missing && other) {
    return { verdict: 'differs', observed: `${operation}: ${seen}`, set: [{ key: `upstream.paths.${operation}`, value: other.path }] };
  }
  if (missing && tries.every((t) => t.answer.kind === 'failed' && t.answer.error instanceof NotFoundError)) {
    return { verdict: 'differs', observed: `${operation}: no spelling answers (${seen}); check upstream.api_url` };
  }
  return { verdict: 'unknown', observed: `${operation}: ${seen}` };
}

export function judgePaths(probes: readonly PathProbe[]): CheckResult {
  const parts = probes.map(judgeOne);
  const list = parts.find((_, i) => probes[i]?.operation === 'listLayer4Packages');
  const form = list?.verdict === 'differs' ? list.set?.[0]?.value : undefined;
  const bare = form !== undefined && !form.startsWith('/prod-api/');
  const writes = (['insertRule', 'updateRule'] as const).map((op) => `upstream.paths.${op}: ${bare ? OPERATIONS[op].documentedPath : OPERATIONS[op].path}`);
  const note = form === undefined
    ? 'insertRule and updateRule (writes) are never sent by the doctor.'
    : `insertRule and updateRule (writes, never sent by the doctor) most likely take the same form: ${writes.join(', ')}.`;
  return combine('path_prefix', parts, note);
}
