// `edge-exporter doctor [--config FILE] [--json]`: a read-only first-day check
// of an account. Config is loaded as by `run` (a file, or the environment
// alone), the upstream opened as by `run` (the bundled simulator when no
// api_url is set), and the report printed as a table or one JSON document.
// Exit 0: nothing differs; 1: something does, or the upstream refused us.
import { loadConfig } from '../config/index.js';
import { createLogger } from '../log/logger.js';
import { openUpstream } from '../daemon/wiring/upstream.js';
import { accountRequestEstimate, renderRequestEstimate } from '../daemon/wiring/requests.js';
import { startBundledSimulator } from './bundled-simulator.js';
import { DOCTOR_DEADLINE_MS, renderJson, renderText, runDoctor, setupFrom } from '../doctor/index.js';
import { parseCommandLine, UsageError, type Io } from './args.js';

export const DOCTOR_USAGE = 'usage: edge-exporter doctor [--config FILE] [--json]';

export async function doctorCommand(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: { config: { type: 'string', short: 'c' }, json: { type: 'boolean' } },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  // The doctor serves nothing, so the server's files need not exist (as for `call` and `run --once`).
  const config = loadConfig({ ...(values.config === undefined ? { text: '{}' } : { file: values.config }), ...(io.env ? { env: io.env } : {}) });
  const secrets = [config.upstream.token ?? '', config.simulator.token];
  io.secrets?.push(...secrets);
  // stdout carries the report (JSON for pipes); the log, warnings only, goes to stderr.
  const logger = createLogger({ level: 'warn', secrets, destination: io.stderr });
  const upstream = await openUpstream(config, logger, { startLocal: startBundledSimulator });
  try {
    const what = upstream.local ? `the bundled simulator at ${upstream.apiUrl}` : upstream.apiUrl;
    io.stderr.write(`doctor: asking ${what}, read-only, for at most ${DOCTOR_DEADLINE_MS / 1000} s\n`);
    const clock = io.clock;
    const report = await runDoctor({ client: upstream.client, setup: setupFrom(config), log: logger, signal, ...(clock ? { now: () => clock.now() } : {}) });
    const auth = report.checks.find((c) => c.id === 'auth');
    if (auth?.verdict === 'differs' && auth.note !== undefined) io.stderr.write(`edge-exporter: ${auth.note}\n`);
    // What the config will ask of this account, against upstream.rate_limit (docs/operations.md, "Rate limits").
    const requests = report.summary.refused ? undefined : await accountRequestEstimate(config, upstream.client, logger, signal);
    // The doctor's own JSON with the estimate beside its checks (the doctor folder knows no collectors).
    if (values.json) io.stdout.write(requests === undefined ? renderJson(report) : `${JSON.stringify({ ...report, requests }, null, 2)}\n`);
    else io.stdout.write(renderText(report) + (requests === undefined ? '' : `\n${renderRequestEstimate(requests, config.upstream.rate_limit)}`));
    return report.summary.exitCode;
  } finally {
    await upstream.stop();
  }
}
