// Observers are other people's code (self-metrics, tests): a bug in one must
// not take a run, a job or the engine down. Every notification goes through here.
import { errorFields } from '../shared/errors.js';

/** Calls `call`, logging (not throwing) what it throws. */
export function notifySafely(log: { error(obj: object, msg?: string): void }, what: string, call: () => void): void {
  try {
    call();
  } catch (err) {
    log.error(errorFields(err), `${what} failed`);
  }
}
