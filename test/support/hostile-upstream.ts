// A loopback proxy in front of the simulator that can turn hostile: for the
// operations it is told, it answers itself and echoes the request's
// Authorization header (and the token in it) back in the envelope `msg`, in
// the body and in a response header, wrapped in HTML, quotes and a newline.
// It can also rewrite a forwarded JSON answer, e.g. to put markup in a label.
// Upstream text reaches logs, the landing page and `call` output, so this is
// what a leak or escaping test points the exporter at.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OPERATIONS, OPERATION_NAMES, type OperationName } from '../../src/api/operations.js';
import { buffer } from 'node:stream/consumers';

/** `json`: the status with an envelope whose msg echoes; `text`: the same words as a plain body. */
export interface EchoRule {
  readonly operations: readonly OperationName[];
  /** HTTP status; with 200 the envelope code is 1001, a business error. */
  readonly status: number;
  readonly style: 'json' | 'text';
}

export interface Echo {
  readonly operation: OperationName;
  readonly status: number;
  readonly authorization: string;
}

export interface HostileUpstream {
  readonly url: string;
  setEcho(rules: readonly EchoRule[]): void;
  /** Rewrites the JSON body of forwarded 200 answers of one operation. */
  setRewrite(operation: OperationName, rewrite: ((json: Record<string, unknown>) => unknown) | undefined): void;
  /** Every answer the proxy made up, in order. */
  echoes(): readonly Echo[];
  close(): Promise<void>;
}

/** Markup, quotes, an ampersand and a line break around the echo: the landing page must escape all of it. */
export function echoText(authorization: string): string {
  const token = authorization.replace(/^Bearer\s+/i, '');
  return `<script>alert("pwned")</script> & 'denied'\nAuthorization: ${authorization} (token ${token})`;
}

const ROUTES: ReadonlyArray<{ re: RegExp; operation: OperationName }> = OPERATION_NAMES.map((operation) => ({
  operation,
  re: new RegExp(`^${OPERATIONS[operation].path.replace(/\{oid\}/, '[^/]+')}$`),
}));

function operationOf(url: string | undefined): OperationName | undefined {
  const path = (url ?? '/').split('?')[0] ?? '/';
  return ROUTES.find((r) => r.re.test(path))?.operation;
}

export async function startHostileUpstream(target: string): Promise<HostileUpstream> {
  const upstream = new URL(target);
  let rules: readonly EchoRule[] = [];
  const rewrites = new Map<OperationName, (json: Record<string, unknown>) => unknown>();
  const echoes: Echo[] = [];

  const echo = (res: ServerResponse, operation: OperationName, rule: EchoRule, authorization: string): void => {
    echoes.push({ operation, status: rule.status, authorization });
    const text = echoText(authorization);
    const body = rule.style === 'text' ? text : JSON.stringify({ code: rule.status === 200 ? 1001 : rule.status, msg: text, data: null });
    res.writeHead(rule.status, {
      'content-type': rule.style === 'text' ? 'text/plain; charset=utf-8' : 'application/json',
      'x-echo-authorization': authorization,
    });
    res.end(body);
  };

  const forward = async (req: IncomingMessage, res: ServerResponse, operation: OperationName | undefined): Promise<void> => {
    const body = await buffer(req);
    const rewrite = operation === undefined ? undefined : rewrites.get(operation);
    const proxied = request(new URL(req.url ?? '/', upstream), { method: req.method, headers: req.headers }, (answer) => {
      // A body cut short upstream (the simulator's truncation) is cut short here too, not left hanging.
      answer.on('close', () => {
        if (!answer.complete) res.destroy();
      });
      if (!rewrite || answer.statusCode !== 200) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      void buffer(answer).then((raw) => {
        const text = JSON.stringify(rewrite(JSON.parse(raw.toString('utf8')) as Record<string, unknown>));
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      }).catch(() => res.destroy());
    });
    // A simulated truncation or hang upstream ends the same way here.
    proxied.on('error', () => res.destroy());
    res.on('close', () => proxied.destroy());
    proxied.end(body);
  };

  const server = createServer((req, res) => {
    const operation = operationOf(req.url);
    const rule = operation === undefined ? undefined : rules.find((r) => r.operations.includes(operation));
    if (operation !== undefined && rule) {
      req.resume();
      echo(res, operation, rule, req.headers.authorization ?? '');
      return;
    }
    forward(req, res, operation).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setEcho: (next) => {
      rules = [...next];
    },
    setRewrite: (operation, rewrite) => {
      if (rewrite) rewrites.set(operation, rewrite);
      else rewrites.delete(operation);
    },
    echoes: () => [...echoes],
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
