#!/usr/bin/env node
// Entry point: picks the sub-command, turns SIGTERM/SIGINT into an AbortSignal,
// and maps errors to exit codes (2: usage, config or invalid request; 1: upstream).
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { EventEmitter } from 'node:events';
import { inspect } from 'node:util';
import { callCommand, CALL_USAGE } from './call.js';
import { runCommand, RUN_USAGE } from './run.js';
import { setMissingFlags } from './node-flags.js';
import { simulateCommand, SIMULATE_USAGE } from './simulate.js';
import { checkConfigCommand, CHECK_CONFIG_USAGE } from './check-config.js';
import { doctorCommand, DOCTOR_USAGE } from './doctor.js';
import { unknownName, UsageError, type Io } from './args.js';
import { versionText } from './version.js';
import { isApiError, ValidationError } from '../api/index.js';
import { ConfigError } from '../config/index.js';
import { redactSecrets } from '../log/redact.js';
import { StartupError, TlsFileError } from '../daemon/daemon.js';
import { isStateError } from '../state/index.js';

interface Command {
  readonly summary: string;
  /** Printed for --help, and under a usage error of this command (not the whole list). */
  readonly usage: string;
  readonly run: (argv: string[], io: Io, signal: AbortSignal) => Promise<number>;
}

const COMMANDS: Readonly<Record<string, Command>> = {
  run: { summary: 'run the exporter daemon', usage: RUN_USAGE, run: runCommand },
  simulate: { summary: 'serve the bundled upstream simulator', usage: SIMULATE_USAGE, run: (argv, io, signal) => simulateCommand(argv, io.stdout, signal) },
  call: { summary: 'run one upstream operation and print its answer as JSON', usage: CALL_USAGE, run: (argv, io) => callCommand(argv, io) },
  'check-config': { summary: 'validate a config file', usage: CHECK_CONFIG_USAGE, run: (argv, io) => checkConfigCommand(argv, io) },
  doctor: { summary: 'read-only check of an account', usage: DOCTOR_USAGE, run: doctorCommand },
  version: { summary: 'print the version (also --version)', usage: 'usage: edge-exporter version', run: (argv, io) => version(argv, io) },
};

const USAGE = `usage: edge-exporter <command> [options]

commands:
${Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(14)} ${c.summary}`).join('\n')}

Run 'edge-exporter <command> --help' for a command's options ('call --help' lists the operations).`;

export async function main(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) return print(io.stderr, USAGE, 2);
  if (name === '--help' || name === '-h' || name === 'help') return print(io.stdout, USAGE, 0);
  const command = name === '--version' ? COMMANDS['version'] : COMMANDS[name];
  try {
    if (command === undefined) throw unknownName('command', name, Object.keys(COMMANDS));
    if (rest.includes('--help') || rest.includes('-h')) return print(io.stdout, command.usage, 0);
    return await command.run(rest, io, signal);
  } catch (err) {
    return report(err, io, command?.usage ?? USAGE);
  }
}

async function version(argv: string[], io: Io): Promise<number> {
  if (argv.length > 0) throw new UsageError(`version takes no arguments, got "${argv[0]}"`);
  return print(io.stdout, versionText(), 0);
}

function report(err: unknown, io: Io, usage: string): number {
  if (err instanceof UsageError) return print(io.stderr, `edge-exporter: ${err.message}\n\n${usage}`, 2);
  if (err instanceof ConfigError) return print(io.stderr, `edge-exporter: ${err.message}`, 2);
  if (err instanceof ValidationError) return print(io.stderr, `edge-exporter: ${err.message}`, 2);
  // Start-up failures the operator fixes outside the config: the message names what and where, a stack would bury it.
  if (err instanceof StartupError || err instanceof TlsFileError || isStateError(err)) return print(io.stderr, `edge-exporter: ${err.message}`, 1);
  // ApiError messages already carry the operation, HTTP status and envelope msg.
  if (isApiError(err)) return print(io.stderr, `edge-exporter: ${err.code}: ${err.message}`, 1);
  const text = `edge-exporter: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
  return print(io.stderr, redactSecrets(text, io.secrets ?? []), 1);
}

function print(stream: NodeJS.WritableStream, text: string, code: number): number {
  stream.write(`${text}\n`);
  return code;
}

// Resolve the npm bin symlink so both `node dist/cli/main.js` and `edge-exporter` count as entry.
const invoked = process.argv[1];
const isEntry = invoked !== undefined && import.meta.url === pathToFileURL(realpathSync(invoked)).href;
if (isEntry) {
  // The daemon only: a long-lived process whose heap is a stable live set plus each cycle's answers (node-flags.ts).
  if (process.argv[2] === 'run') setMissingFlags();
  const controller = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => controller.abort());
  // Handled from the first instant: Node's default for SIGHUP ends the process, and systemd's ExecReload sends it.
  const hangups = new EventEmitter();
  process.on('SIGHUP', () => hangups.emit('reload'));
  const onHangup = (listener: () => void): (() => void) => {
    hangups.on('reload', listener);
    return () => hangups.off('reload', listener);
  };
  // Node's own crash report prints an error with all its properties (a failed request's headers, say), unmasked.
  const secrets: string[] = [];
  const crash = (err: unknown): void => {
    process.stderr.write(`${redactSecrets(`edge-exporter: crashed: ${inspect(err)}`, secrets)}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, secrets, onHangup }, controller.signal);
  process.exitCode = code;
}
