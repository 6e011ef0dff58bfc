// Path matching for the operations table. Both the default `path` and the
// document's own spelling (`documentedPath`) are served, so a client whose
// path was overridden in config reaches the same operation. One port serves
// both hosts (api and login): the Host header is not consulted. The pathForm
// reading narrows the operations documented without /prod-api (9-13) to one
// spelling, so a client that picked the other one gets a 404.
import { OPERATIONS, type OperationSpec } from '../api/operations.js';
import type { PathForm } from './readings.js';

interface Route {
  readonly spec: OperationSpec;
  readonly re: RegExp;
  readonly params: readonly string[];
}

type RouteMatch =
  | { readonly kind: 'operation'; readonly spec: OperationSpec; readonly pathParams: Record<string, string> }
  | { readonly kind: 'wrongMethod'; readonly allow: string }
  | { readonly kind: 'badPath' }
  | { readonly kind: 'none' };

export function compileRoutes(form: PathForm = 'both'): Route[] {
  return Object.values(OPERATIONS).flatMap((spec) => templates(spec, form).map((template) => compile(spec, template)));
}

function templates(spec: OperationSpec, form: PathForm): string[] {
  const bare = spec.documentedPath !== undefined && !spec.documentedPath.startsWith(PREFIX) ? spec.documentedPath : undefined;
  if (bare !== undefined && form === 'prefixed') return [spec.path];
  if (bare !== undefined && form === 'bare') return [bare];
  return [spec.path, spec.documentedPath].filter((p): p is string => p !== undefined);
}

const PREFIX = '/prod-api';

function compile(spec: OperationSpec, template: string): Route {
  const params: string[] = [];
  const source = template
    .split(/(\{\w+\})/)
    .map((part) => {
      const m = /^\{(\w+)\}$/.exec(part);
      if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      params.push(m[1] ?? '');
      return '([^/]+)';
    })
    .join('');
  return { spec, re: new RegExp(`^${source}$`), params };
}

export function matchRoute(routes: readonly Route[], method: string, pathname: string): RouteMatch {
  const hits = routes.flatMap((r) => {
    const m = r.re.exec(pathname);
    return m ? [{ r, m }] : [];
  });
  const hit = hits.find(({ r }) => r.spec.method === method);
  if (!hit) return hits.length > 0 ? { kind: 'wrongMethod', allow: [...new Set(hits.map(({ r }) => r.spec.method))].join(', ') } : { kind: 'none' };
  const pathParams: Record<string, string> = {};
  try {
    hit.r.params.forEach((name, i) => {
      pathParams[name] = decodeURIComponent(hit.m[i + 1] ?? '');
    });
  } catch {
    return { kind: 'badPath' };
  }
  return { kind: 'operation', spec: hit.r.spec, pathParams };
}
