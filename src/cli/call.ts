// `edge-exporter call OPERATION [--body JSON | --body-file FILE] [--config FILE] [--account NAME]`:
// a shell for every operation, the management ones included (push URLs, set
// certificates, add layer-4 rules, manage orders), against one account.
import { readFile } from 'node:fs/promises';
import { OPERATION_NAMES, isOperationName } from '../api/index.js';
import type { RequestOf } from '../api/index.js';
import { loadConfig, type Config } from '../config/index.js';
import { pickAccounts } from './account-option.js';
import { createLogger } from '../log/logger.js';
import { parseCommandLine, unknownName, UsageError, type Io } from './args.js';
import { openUpstream } from '../daemon/wiring/upstream.js';
import { startBundledSimulator } from './bundled-simulator.js';
import { errnoText } from '../shared/errno-text.js';

export const CALL_USAGE = `usage: edge-exporter call OPERATION [--body JSON | --body-file FILE] [--config FILE] [--account NAME]

Runs one upstream operation and prints its answer as JSON. Without --config the
upstream comes from EDGE_API_URL, EDGE_LOGIN_URL and EDGE_API_TOKEN. With a
config listing several accounts, --account names the one to call.
A path parameter (getPackageDetails' oid) goes in the body like any other field.
Operations: ${OPERATION_NAMES.join(', ')}`;

export async function callCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: { body: { type: 'string' }, 'body-file': { type: 'string' }, config: { type: 'string', short: 'c' }, account: { type: 'string' } },
  });
  const operation = positionals[0];
  if (operation === undefined || positionals.length > 1) throw new UsageError('call takes exactly one OPERATION');
  if (!isOperationName(operation)) throw unknownName('operation', operation, OPERATION_NAMES);
  if (values.body !== undefined && values['body-file'] !== undefined) throw new UsageError('give --body or --body-file, not both');
  const text = values['body-file'] !== undefined ? await readBodyFile(values['body-file']) : (values.body ?? '{}');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`the request body is not valid JSON: ${(err as Error).message}`);
  }
  const loaded = loadConfig({ ...(values.config === undefined ? { text: '{}' } : { file: values.config }), ...(io.env ? { env: io.env } : {}) });
  const config = accountOf(loaded, values.account);
  // Logs go to stderr so stdout stays pure JSON for pipes (jq).
  io.secrets?.push(config.upstream.token ?? '');
  const logger = createLogger({ level: 'warn', secrets: [config.upstream.token ?? ''], destination: io.stderr });
  const upstream = await openUpstream(config, logger, { startLocal: startBundledSimulator });
  try {
    const answer = await upstream.call(operation, body as RequestOf<typeof operation>);
    io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    return 0;
  } finally {
    await upstream.stop();
  }
}

/** The config of the account `name` names; without a name, the one account (a list of several must be chosen from). */
function accountOf(config: Config, name: string | undefined): Config {
  const picked = pickAccounts(config, name);
  const [only] = picked;
  if (picked.length > 1 || only === undefined) {
    throw new UsageError(`the config lists ${picked.length} accounts (${picked.map((a) => a.name).join(', ')}): name the one to call with --account`);
  }
  return only.config;
}

async function readBodyFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --body-file ${file}: ${errnoText(err)}`);
  }
}
