// The daemon as the soak drives it: schedules off, one collector cycle or WAF
// poll per call, on a clock the driver sets with every call (the poller's
// timers are wall-clock, so an accelerated run steps time itself instead).
// inProcessDaemon runs it here (the test); soak-child.ts wraps the same
// object in a child process with --expose-gc, so the bench can weigh the
// daemon's heap alone, without the simulator's or the receiver's.
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';

export interface RunSummary {
  readonly collector: string;
  readonly ok: boolean;
  readonly partialErrors: number;
}

export interface ForwardSummary {
  readonly ok: boolean;
  readonly windows: number;
  readonly forwarded: number;
}

export interface MemorySample {
  readonly heapUsed: number;
  readonly rss: number;
  readonly external: number;
  /** Whether a full GC ran first (only with --expose-gc). */
  readonly collected: boolean;
}

export interface SoakDaemon {
  /** Base URL of the daemon's HTTP server (changes on restart). */
  url(): string;
  /** Every enabled collector once, the poller's clock at `now`. */
  runOnce(now: number): Promise<RunSummary[]>;
  /** One WAF event poll (every window due at `now`); waits while delivery is retried. */
  forwardOnce(now: number): Promise<ForwardSummary>;
  /** Graceful stop and a new Daemon on the same state directory, as a redeploy does. */
  restart(): Promise<void>;
  memory(): Promise<MemorySample>;
  /** Warning and error log lines so far, by message. */
  warnings(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

export type SoakDaemonFactory = (configText: string) => Promise<SoakDaemon>;

export const inProcessDaemon: SoakDaemonFactory = async (configText) => {
  const config = loadConfig({ text: configText, env: {} });
  let now = 0;
  const warnings = new Map<string, number>();
  const logger = createLogger({
    level: 'warn',
    destination: {
      write: (line: string) => {
        const msg = String((JSON.parse(line) as { msg?: unknown }).msg ?? '');
        warnings.set(msg, (warnings.get(msg) ?? 0) + 1);
      },
    },
  });
  const open = async (): Promise<{ daemon: Daemon; url: string }> => {
    const daemon = new Daemon({ config, logger, version: 'soak', clock: { now: () => now }, schedules: false });
    return { daemon, url: await daemon.start() };
  };
  let current = await open();
  return {
    url: () => current.url,
    runOnce: async (at) => {
      now = at;
      const reports = await current.daemon.runOnce();
      return reports.map((r) => ({ collector: r.collector, ok: r.ok, partialErrors: r.partialErrors }));
    },
    forwardOnce: async (at) => {
      now = at;
      const report = await current.daemon.forwardOnce();
      return { ok: report?.ok ?? false, windows: report?.windows ?? 0, forwarded: report?.forwarded ?? 0 };
    },
    restart: async () => {
      await current.daemon.stop();
      current = await open();
    },
    memory: () => {
      const collected = globalThis.gc !== undefined;
      // Several passes: weak maps and finalizers can free more on a second one.
      for (let i = 0; collected && i < 4; i++) globalThis.gc?.();
      const { heapUsed, rss, external } = process.memoryUsage();
      return Promise.resolve({ heapUsed, rss, external, collected });
    },
    warnings: () => Promise.resolve(Object.fromEntries(warnings)),
    stop: () => current.daemon.stop(),
  };
};
