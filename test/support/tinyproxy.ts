// A real forward proxy for the network tests: Debian's tinyproxy, started on
// a free loopback port with a generated config (only 127.0.0.1 allowed,
// CONNECT only to the given ports, optional Basic auth), logging to a file
// the test reads to see what went through it and in which form.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './ports.js';

export interface Tinyproxy {
  /** `http://127.0.0.1:PORT` (without credentials). */
  readonly url: string;
  readonly port: number;
  /** The request lines tinyproxy logged, e.g. `CONNECT 127.0.0.1:4443 HTTP/1.1` or `POST http://127.0.0.1:8080/v1/logs HTTP/1.1`. */
  requests(): string[];
  /** The whole log, for assertions that something is absent. */
  log(): string;
  close(): Promise<void>;
}

interface TinyproxyOptions {
  /** Ports CONNECT may reach (tinyproxy refuses the others with 403). */
  readonly connectPorts: readonly number[];
  /** `BasicAuth user password`: requests without them are answered 407. */
  readonly basicAuth?: { readonly user: string; readonly password: string };
}

const REQUEST_RE = /Request \(file descriptor \d+\): (.+)$/;

export async function startTinyproxy(dir: string, options: TinyproxyOptions): Promise<Tinyproxy> {
  const binary = process.env['TINYPROXY'] ?? 'tinyproxy';
  const port = await freePort();
  const logFile = join(dir, `tinyproxy-${port}.log`);
  const configFile = join(dir, `tinyproxy-${port}.conf`);
  writeFileSync(configFile, [
    `Port ${port}`,
    'Listen 127.0.0.1',
    'Timeout 30',
    `LogFile "${logFile}"`,
    'LogLevel Info',
    'MaxClients 20',
    'Allow 127.0.0.1',
    'DisableViaHeader Yes',
    ...options.connectPorts.map((p) => `ConnectPort ${p}`),
    ...(options.basicAuth ? [`BasicAuth ${options.basicAuth.user} ${options.basicAuth.password}`] : []),
    '',
  ].join('\n'));
  const child: ChildProcess = spawn(binary, ['-d', '-c', configFile], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = (): string => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  // Ready when it says so in its log (it binds before); give up after 10 s or when it exits.
  const deadline = Date.now() + 10_000;
  while (!log().includes('Accepting connections')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`tinyproxy did not start:\n${log()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests: () => log().split('\n').map((line) => REQUEST_RE.exec(line)?.[1]).filter((r): r is string => r !== undefined),
    log,
    close: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
