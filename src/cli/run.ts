// `edge-exporter run [--config FILE] [--listen HOST:PORT] [--web.config.file FILE] [--once]`:
// the daemon. --once runs every enabled collector once, prints the exposition
// and exits (non-zero when every collector failed); state carries over between
// runs. --web.config.file reads exporter-toolkit's web config (TLS, client
// certificates, bcrypt users), as the other exporters take it.
import { readFileSync } from 'node:fs';
import { loadConfig, resolveAccounts, type Config } from '../config/index.js';
import { addLogSecret, createLogger } from '../log/logger.js';
import { credentialParts } from '../log/redact.js';
import { Daemon } from '../daemon/daemon.js';
import { parseCommandLine, parseListen, UsageError, type Io } from './args.js';
import { startBundledSimulator } from './bundled-simulator.js';
import { packageVersion } from './version.js';

export const RUN_USAGE = 'usage: edge-exporter run [--config FILE] [--listen HOST:PORT] [--web.config.file FILE] [--once]';

export async function runCommand(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: { config: { type: 'string', short: 'c' }, listen: { type: 'string' }, 'web.config.file': { type: 'string' }, once: { type: 'boolean' } },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  if (values.listen !== undefined) parseListen(values.listen);
  const webConfigFile = values['web.config.file'];
  if (webConfigFile === '') throw new UsageError('--web.config.file needs a file name');
  const load = (): Config => loadConfig({
    ...(values.config === undefined ? { text: '{}' } : { file: values.config }),
    ...(io.env ? { env: io.env } : {}),
    // --once serves no HTTP, so the server's files (and the web config) need not exist.
    serverFiles: values.once !== true,
    ...(webConfigFile === undefined || values.once === true ? {} : { webConfigFile }),
  });
  const config = load();
  const secrets = configSecrets(config);
  io.secrets?.push(...secrets);
  // With --once, stdout carries the exposition, so the log goes to stderr.
  const logger = createLogger({ level: config.log.level, format: config.log.format, secrets, destination: values.once ? io.stderr : io.stdout });
  const reloadConfig = (): Config => {
    const next = load();
    // Masked before anything can log them: the new token, password or header.
    const added = configSecrets(next);
    io.secrets?.push(...added);
    for (const secret of added) addLogSecret(logger, secret);
    logger.level = next.log.level;
    return next;
  };
  const daemon = new Daemon({
    config, logger, version: packageVersion(), startLocal: startBundledSimulator, reloadConfig,
    ...(values.listen !== undefined ? { listen: values.listen } : {}),
  });
  const unsubscribe = io.onHangup?.(() => {
    logger.info('SIGHUP: reloading the configuration');
    void daemon.reload();
  });
  try {
    if (values.once) {
      const reports = await daemon.runOnce();
      io.stdout.write(await daemon.renderText());
      const failed = reports.filter((r) => !r.ok).map((r) => r.collector);
      if (failed.length > 0) logger.warn({ failed }, 'collectors failed');
      return reports.length > 0 && failed.length === reports.length ? 1 : 0;
    }
    const url = await daemon.start();
    logger.info({ url: `${url}/metrics` }, 'serving metrics');
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    logger.info('shutting down: stopping schedules, saving state, closing the server');
    return 0;
  } finally {
    unsubscribe?.();
    await daemon.stop();
  }
}

/** Every secret value a config holds, for the log's masking. */
function configSecrets(config: Config): string[] {
  return [
    // Every account's token: the top level's is only the shared default under `accounts:`.
    ...resolveAccounts(config).map((a) => a.config.upstream.token ?? ''),
    config.upstream.token ?? '', config.simulator.token, config.server.basic_auth?.password ?? '',
    passwordFromFile(config.server.basic_auth?.password_file),
    // A bcrypt hash can be attacked offline, so no log shows one either.
    config.server.basic_auth?.password_hash ?? '', ...Object.values(config.web_config?.users ?? {}),
    ...Object.values(config.otlp.headers).flatMap(credentialParts),
    ...Object.values(config.otlp_metrics.headers).flatMap(credentialParts),
    config.remote_write.bearer_token ?? '', passwordFromFile(config.remote_write.bearer_token_file),
    config.remote_write.basic_auth?.password ?? '', passwordFromFile(config.remote_write.basic_auth?.password_file),
    ...Object.values(config.remote_write.headers).flatMap(credentialParts),
  ];
}

/** A password or token kept in a file, so the logger masks it too (its user reads the file again). */
function passwordFromFile(file: string | undefined): string {
  if (file === undefined) return '';
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    // --once does not check the server's files; an unreadable one has nothing to mask.
    return '';
  }
}
