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
import { simulateCommand } from './simulate.js';
import { checkConfigCommand, CHECK_CONFIG_USAGE } from './check-config.js';
import { doctorCommand, DOCTOR_USAGE } from './doctor.js';
import { UsageError, type Io } from './args.js';
import { isApiError, ValidationError } from '../api/index.js';
import { ConfigError } from '../config/index.js';
import { redactSecrets } from '../log/redact.js';
import { StartupError, TlsFileError } from '../daemon/daemon.js';
import { isStateError } from '../state/index.js';

const USAGE = `usage: edge-exporter <command> [options]

commands:
  run            run the exporter daemon          (${RUN_USAGE})
  simulate       serve the bundled upstream simulator
  call           run one upstream operation and print the JSON response
  check-config   validate a config file           (${CHECK_CONFIG_USAGE})
  doctor         read-only check of an account    (${DOCTOR_USAGE})

Run 'edge-exporter call --help' for the list of operations.`;

export async function main(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await runCommand(rest, io, signal);
      case 'simulate':
        return await simulateCommand(rest, io.stdout, signal);
      case 'call':
        if (rest.includes('--help')) return print(io.stdout, CALL_USAGE, 0);
        return await callCommand(rest, io);
      case 'check-config':
        return await checkConfigCommand(rest, io);
      case 'doctor':
        if (rest.includes('--help')) return print(io.stdout, DOCTOR_USAGE, 0);
        return await doctorCommand(rest, io, signal);
      case undefined:
      case '--help':
      case 'help':
        return print(io.stdout, USAGE, command === undefined ? 2 : 0);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    return report(err, io);
  }
}

function report(err: unknown, io: Io): number {
  if (err instanceof UsageError) return print(io.stderr, `edge-exporter: ${err.message}\n\n${USAGE}`, 2);
  if (err instanceof ConfigError) return print(io.stderr, `edge-exporter: ${err.message}`, 2);
  if (err instanceof ValidationError) return print(io.stderr, `edge-exporter: ${err.message}`, 2);
  // Start-up failures the operator fixes outside the config: the message names what and where, a stack would bury it.
  if (err instanceof StartupError || err instanceof TlsFileError || isStateError(err)) return print(io.stderr, `edge-exporter: ${err.message}`, 1);
  // ApiError messages already carry the operation, HTTP status and envelope msg.
  if (isApiError(err)) return print(io.stderr, `edge-exporter: ${err.code}: ${err.message}`, 1);
  if (err instanceof Error && String((err as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS')) {
    return print(io.stderr, `edge-exporter: ${err.message}\n\n${USAGE}`, 2);
  }
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
