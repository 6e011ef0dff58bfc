// Starting and stopping what one config runs (every account's engine, jobs,
// log sink and upstream connections, and the push pipes' senders they share):
// the daemon does it at start and stop, a reload does it to swap them, and
// to add, rebuild or remove one account (startAccount, stopAccount) while the
// others run on.
import type { Account, Components } from './accounts.js';
import type { Pipes } from './wiring/pipes.js';

/** How long a stop waits for each push receiver to take what is pending, and then for the request in flight. */
const PUSH_STOP_FLUSH_MS = 5_000;
const PUSH_STOP_DEADLINE_MS = 2_000;

/** What a stop needs of a push sender (remote-write's, OTLP metrics'). */
interface StoppingSender {
  flush(signal?: AbortSignal): Promise<void>;
  stop(options?: { readonly deadlineMs?: number }): Promise<void>;
}

/**
 * Restores every account's jobs, starts the log sinks (the WAF job delivers
 * from its first run), then the senders (after restore: the ledgers have
 * restored what was counted but not yet confirmed, and it goes first), then
 * the engines.
 */
export async function startComponents(components: Components): Promise<void> {
  const { accounts, pipes } = components;
  await Promise.all(accounts.map((a) => a.parts.engine.restore()));
  await Promise.all(accounts.map((a) => a.parts.wafEvents?.logSink.start()));
  await startSenders(pipes);
  await Promise.all(accounts.map((a) => a.parts.engine.start()));
}

/** The push pipes' senders (idempotent: `run --once` starts them after its cycle). */
export async function startSenders(pipes: Pipes): Promise<void> {
  await pipes.remoteWrite?.sender.start();
  await pipes.otlpMetrics?.sender.start();
}

/** One account added or rebuilt by a reload, beside the running ones. */
export async function startAccount(account: Account): Promise<void> {
  await account.parts.engine.restore();
  await account.parts.wafEvents?.logSink.start();
  await account.parts.engine.start();
}

/** One account removed or rebuilt by a reload: its jobs save their state, its sink delivers, its connections close. */
export async function stopAccount(account: Account): Promise<void> {
  await account.parts.engine.stop();
  await account.parts.wafEvents?.logSink.stop();
  await account.parts.upstream.stop();
}

/**
 * Producers first: every job saves its state (the WAF job its checkpoint),
 * then the sinks deliver what they accepted: the OTLP log sinks, and the
 * remote-write and OTLP metrics senders, side by side, which push the last
 * cycles' samples for up to PUSH_STOP_FLUSH_MS (what they cannot push is in
 * the state files and goes first at the next start).
 */
export async function stopComponents(components: Components): Promise<void> {
  const { accounts, pipes } = components;
  await Promise.all(accounts.map((a) => a.parts.engine.stop()));
  await Promise.all(accounts.map((a) => a.parts.wafEvents?.logSink.stop()));
  const senders = [pipes.remoteWrite?.sender, pipes.otlpMetrics?.sender].filter((s) => s !== undefined);
  await Promise.all(senders.map(stopSender));
  await Promise.all(accounts.map((a) => a.parts.upstream.stop()));
}

async function stopSender(sender: StoppingSender): Promise<void> {
  // A timer that holds the process up (the sender's own waits do not, so they never keep a daemon from exiting): under `run --once` nothing else does.
  const flushing = new AbortController();
  const deadline = setTimeout(() => flushing.abort(), PUSH_STOP_FLUSH_MS);
  await sender.flush(flushing.signal).finally(() => clearTimeout(deadline));
  await sender.stop({ deadlineMs: PUSH_STOP_DEADLINE_MS });
}
