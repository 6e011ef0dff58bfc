// `edge-exporter doctor [--config FILE] [--account NAME] [--json]`: a
// read-only first-day check of each account (of the one named). Config is
// loaded as by `run` (a file, or the environment alone), each account's
// upstream opened as by `run` (the bundled simulator when no api_url is set),
// one after another, and each report printed as a table or JSON: one
// document, or with named accounts one `{ "accounts": [...] }` with a report
// per account. Exit 0: nothing differs; 1: something does in some account,
// or an upstream refused us.
import { accountsNamed, loadConfig, resolveAccounts, type Config } from '../config/index.js';
import type { Logger } from '../log/logger.js';
import { createLogger } from '../log/logger.js';
import { openUpstream } from '../daemon/wiring/upstream.js';
import { accountRequestEstimate, renderRequestEstimate } from '../daemon/wiring/requests.js';
import { startBundledSimulator } from './bundled-simulator.js';
import { DOCTOR_DEADLINE_MS, renderText, runDoctor, setupFrom } from '../doctor/index.js';
import { pickAccounts } from './account-option.js';
import { parseCommandLine, UsageError, type Io } from './args.js';

export const DOCTOR_USAGE = 'usage: edge-exporter doctor [--config FILE] [--account NAME] [--json]';

/** One account's report as printed: the doctor's own, with the request estimate beside it. */
interface AccountReport {
  readonly exitCode: number;
  readonly text: string;
  readonly json: object;
}

export async function doctorCommand(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: { config: { type: 'string', short: 'c' }, account: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  // The doctor serves nothing, so the server's files need not exist (as for `call` and `run --once`).
  const config = loadConfig({ ...(values.config === undefined ? { text: '{}' } : { file: values.config }), ...(io.env ? { env: io.env } : {}) });
  const accounts = pickAccounts(config, values.account);
  const secrets = [...resolveAccounts(config).map((a) => a.config.upstream.token ?? ''), config.simulator.token];
  io.secrets?.push(...secrets);
  // stdout carries the report (JSON for pipes); the log, warnings only, goes to stderr.
  const logger = createLogger({ level: 'warn', secrets, destination: io.stderr });
  const named = accountsNamed(config);
  const reports: { readonly name: string; readonly report: AccountReport }[] = [];
  for (const account of accounts) {
    const log = named ? logger.child({ account: account.name }) : logger;
    reports.push({ name: account.name, report: await doctorAccount(account.config, named ? account.name : undefined, io, log, signal) });
  }
  if (!named) {
    const [only] = reports;
    io.stdout.write(values.json ? `${JSON.stringify(only?.report.json, null, 2)}\n` : only?.report.text ?? '');
  } else if (values.json) io.stdout.write(`${JSON.stringify({ accounts: reports.map((r) => ({ account: r.name, ...r.report.json })) }, null, 2)}\n`);
  else io.stdout.write(reports.map((r) => `== account ${r.name} ==\n${r.report.text}`).join('\n'));
  return Math.max(...reports.map((r) => r.report.exitCode));
}

/** The doctor's checks of one account, and what its config will ask of it. */
async function doctorAccount(config: Config, name: string | undefined, io: Io, logger: Logger, signal: AbortSignal): Promise<AccountReport> {
  const upstream = await openUpstream(config, logger, { startLocal: startBundledSimulator });
  try {
    const what = upstream.local ? `the bundled simulator at ${upstream.apiUrl}` : upstream.apiUrl;
    io.stderr.write(`doctor: ${name === undefined ? '' : `account ${name}: `}asking ${what}, read-only, for at most ${DOCTOR_DEADLINE_MS / 1000} s\n`);
    const clock = io.clock;
    const report = await runDoctor({ client: upstream.client, setup: setupFrom(config), log: logger, signal, ...(clock ? { now: () => clock.now() } : {}) });
    const auth = report.checks.find((c) => c.id === 'auth');
    if (auth?.verdict === 'differs' && auth.note !== undefined) io.stderr.write(`edge-exporter: ${name === undefined ? '' : `account ${name}: `}${auth.note}\n`);
    // What the config will ask of this account, against upstream.rate_limit (docs/operations.md, "Rate limits").
    const requests = report.summary.refused ? undefined : await accountRequestEstimate(config, upstream.client, logger, signal);
    // The doctor's own JSON with the estimate beside its checks (the doctor folder knows no collectors).
    const json = requests === undefined ? report : { ...report, requests };
    const text = renderText(report) + (requests === undefined ? '' : `\n${renderRequestEstimate(requests, config.upstream.rate_limit)}`);
    return { exitCode: report.summary.exitCode, text, json };
  } finally {
    await upstream.stop();
  }
}
