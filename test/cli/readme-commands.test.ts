// The shell commands of the README and of docs/commands.md, where the README
// sends its readers for the commands, run as written (issue 24: "README
// command blocks run as written"). Convention, for whoever edits them:
// - every ```sh (or ```bash / ```shell) block of PAGES, indented in a list
//   item or not, is run, page by page in that order, block by block down each
//   page, each command once (a command runs on until its single quotes close);
//   a page that shows commands meant to run as written belongs in PAGES;
// - a block that cannot run here carries, on the line right before its fence,
//   `<!-- readme-commands: not run: REASON -->` (npm ci, a real account, a
//   proxy, your own config); the reason is required;
// - `edge-exporter` is the CLI from source (a shim on PATH running
//   src/cli/main.ts, type-stripped once by cli-from-source.ts: under tsx
//   each of the ~14 starts cost ~1.7 s), and the pages' simulator port
//   127.0.0.1:9400 becomes a free loopback port, so parallel runs cannot
//   collide;
// - `edge-exporter simulate` is the one long-running command: it is started in
//   the background, every later command runs against it, and it is stopped
//   with SIGTERM at the end (docs/commands.md starts the simulator itself,
//   before its commands that need one; the test starts no other);
// - each command must exit 0 with nothing on stderr and something on stdout;
//   the JSON of `call` and of the admin endpoint (curl) must carry the
//   envelope code 200, and a list must list something. A command that shows
//   a mistake ends in a comment `# exits N: TEXT`: it must exit N with TEXT
//   on stderr. `export` lines carry over to the later commands of their block.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transpileCli, type CliFromSource } from '../support/cli-from-source.js';
import { freePort } from '../support/ports.js';

const ROOT = resolve(import.meta.dirname, '../..');
/** The pages whose shell blocks run as written, in the order they run. */
const PAGES = ['README.md', 'docs/commands.md'];
const DOCS_PORT = '127.0.0.1:9400';
const NOT_RUN = /^\s*<!-- readme-commands: not run: (.*) -->$/;

interface Block {
  /** Page and line of the opening fence, e.g. `docs/commands.md:12`. */
  where: string;
  commands: string[];
  /** Why the block is not run; undefined: it is. */
  notRun?: string;
}

/** A page's shell blocks, each split into its commands. */
function shellBlocks(page: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    // A fence may be indented (a block inside a list item); its lines lose that indent.
    const indent = /^(\s*)```(sh|bash|shell)\s*$/.exec(lines[i] ?? '')?.[1];
    if (indent === undefined) continue;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !(lines[j] ?? '').trimStart().startsWith('```'); j++) body.push((lines[j] ?? '').slice(indent.length));
    const marker = NOT_RUN.exec(lines[i - 1] ?? '');
    blocks.push({ where: `${page}:${i + 1}`, commands: commandsOf(body), ...(marker ? { notRun: marker[1]?.trim() ?? '' } : {}) });
    i = j;
  }
  return blocks;
}

/** One command per entry: a line, joined with the next while a single quote is open; comment and blank lines dropped. */
function commandsOf(body: readonly string[]): string[] {
  const commands: string[] = [];
  let open: string[] = [];
  for (const line of body) {
    if (open.length === 0 && (line.trim() === '' || line.trimStart().startsWith('#'))) continue;
    open.push(line);
    const joined = open.join('\n');
    if ((joined.match(/'/g) ?? []).length % 2 === 0 && !joined.endsWith('\\')) {
      commands.push(joined);
      open = [];
    }
  }
  if (open.length > 0) throw new Error(`a command with an unclosed quote: ${open.join('\n')}`);
  return commands;
}

const blocks = PAGES.flatMap((page) => shellBlocks(page, readFileSync(join(ROOT, page), 'utf8')));
const run = blocks.filter((b) => b.notRun === undefined);
/** Every command run, with the exports of its block before it. */
const steps = run.flatMap((b) => b.commands.map((command, k) => ({
  where: b.where, command, exports: b.commands.slice(0, k).filter((c) => /^export\s/.test(c)),
})));
const isSimulate = (command: string): boolean => /^edge-exporter simulate\b/.test(command);
/** Commands that talk to the simulator. */
const needsSimulator = (command: string): boolean => /^(edge-exporter call \w+ --body|curl)\b/.test(command);
const EXITS = /# exits (\d+): (.*)$/;

let port = 0;
let env: Record<string, string> = {};
let bin = '';
let cli: CliFromSource | undefined;
let simulator: ChildProcess | undefined;
let simulatorOut = '';

beforeAll(async () => {
  port = await freePort();
  bin = mkdtempSync(join(tmpdir(), 'edge-readme-bin-'));
  const shim = join(bin, 'edge-exporter');
  cli = transpileCli(ROOT);
  writeFileSync(shim, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(cli.main)} "$@"\n`);
  chmodSync(shim, 0o755);
  // Only what a shell needs: no EDGE_* or proxy variable of the developer's reaches a command.
  env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: bin, LANG: 'C.UTF-8' };
});

afterAll(() => {
  // Stopped by the last test; this only covers a run that failed before it.
  if (simulator?.exitCode === null) simulator.kill('SIGKILL');
  rmSync(bin, { recursive: true, force: true });
  cli?.remove();
});

const here = (text: string): string => text.replaceAll(DOCS_PORT, `127.0.0.1:${port}`);

function shell(script: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done, fail) => {
    execFile('bash', ['-c', script], { cwd: ROOT, env, timeout: 20_000, killSignal: 'SIGKILL' }, (err, out, errText) => {
      if (err && typeof err.code !== 'number') return fail(err);
      done({ code: typeof err?.code === 'number' ? err.code : 0, out, err: errText });
    });
  });
}

/** Starts the pages' simulator in the background; resolves once it says where it listens. */
function startSimulator(command: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn('bash', ['-c', `exec ${here(command)}`], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    simulator = child;
    child.stdout.on('data', (chunk: Buffer) => {
      simulatorOut += chunk.toString();
      if (simulatorOut.includes('simulator listening on')) done();
    });
    child.stderr.on('data', (chunk: Buffer) => { simulatorOut += chunk.toString(); });
    child.once('exit', (code) => fail(new Error(`the simulator exited (${code}) before listening: ${simulatorOut}`)));
  });
}

/** "Sensible output": JSON answers carry the envelope's success, and a list is not empty. */
function expectSensible(command: string, out: string): void {
  if (/^export\s/.test(command)) return expect(out).toBe('');
  expect(out.trim()).not.toBe('');
  if (!needsSimulator(command)) return;
  const json = JSON.parse(out) as { code?: unknown; rows?: unknown };
  expect(json.code, out.slice(0, 300)).toBe(200);
  if (Array.isArray(json.rows)) expect(json.rows.length).toBeGreaterThan(0);
}

describe('shell blocks of the README and docs/commands.md', () => {
  it('are run, or say why not', () => {
    expect(run.length).toBeGreaterThan(0);
    for (const b of blocks) if (b.notRun !== undefined) expect(b.notRun, b.where).not.toBe('');
    // The pages start the simulator their commands expect, before them.
    const start = steps.findIndex((s) => isSimulate(s.command));
    expect(steps.filter((s) => isSimulate(s.command))).toHaveLength(1);
    expect(steps.findIndex((s) => needsSimulator(s.command))).toBeGreaterThan(start);
  });

  it.each(steps.map((s) => [`${s.where} ${s.command.split('\n')[0]}`, s] as const))('%s', async (_name, step) => {
    if (isSimulate(step.command)) {
      await startSimulator(step.command);
      expect(simulatorOut).toContain(`simulator listening on http://127.0.0.1:${port}`);
      return;
    }
    const r = await shell(here([...step.exports, step.command].join('\n')));
    const failure = EXITS.exec(step.command);
    if (failure) {
      expect(r.code).toBe(Number(failure[1]));
      expect(r.err).toContain(failure[2]?.trim());
      return;
    }
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expectSensible(step.command, r.out);
  });

  it('the simulator the pages started stops cleanly on SIGTERM', async () => {
    const child = simulator;
    if (child === undefined) throw new Error('no simulator was started');
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(simulatorOut).toContain('simulator stopped');
  });
});
