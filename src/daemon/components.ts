// Starting and stopping one config's components (the engine, its jobs, the
// sinks, the upstream connections): the daemon does it at start and stop, and
// a reload does it to swap one config's components for another's.
import type { Components } from './wiring/index.js';

/** How long a stop waits for each push receiver to take what is pending, and then for the request in flight. */
const PUSH_STOP_FLUSH_MS = 5_000;
const PUSH_STOP_DEADLINE_MS = 2_000;

/** What a stop needs of a push sender (remote-write's, OTLP metrics'). */
interface StoppingSender {
  flush(signal?: AbortSignal): Promise<void>;
  stop(options?: { readonly deadlineMs?: number }): Promise<void>;
}

/** Restores the jobs' state and starts them; the sink before the engine, as the WAF job delivers from its first run. */
export async function startComponents(components: Components): Promise<void> {
  await components.engine.restore();
  await components.wafEvents?.logSink.start();
  // After restore: the ledgers have restored what was counted but not yet confirmed, and it goes first.
  await components.remoteWrite?.sender.start();
  await components.otlpMetrics?.sender.start();
  await components.engine.start();
}

/**
 * Producers first: every job saves its state (the WAF job its checkpoint),
 * then the sinks deliver what they accepted: the OTLP log sink, and the
 * remote-write and OTLP metrics senders, side by side, which push the last
 * cycles' samples for up to PUSH_STOP_FLUSH_MS (what they cannot push is in
 * the state files and goes first at the next start).
 */
export async function stopComponents(components: Components): Promise<void> {
  await components.engine.stop();
  await components.wafEvents?.logSink.stop();
  const senders = [components.remoteWrite?.sender, components.otlpMetrics?.sender].filter((s) => s !== undefined);
  await Promise.all(senders.map(stopSender));
  await components.upstream.stop();
}

async function stopSender(sender: StoppingSender): Promise<void> {
  // A timer that holds the process up (the sender's own waits do not, so they never keep a daemon from exiting): under `run --once` nothing else does.
  const flushing = new AbortController();
  const deadline = setTimeout(() => flushing.abort(), PUSH_STOP_FLUSH_MS);
  await sender.flush(flushing.signal).finally(() => clearTimeout(deadline));
  await sender.stop({ deadlineMs: PUSH_STOP_DEADLINE_MS });
}
