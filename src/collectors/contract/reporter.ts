// Turns findings into what an operator sees: each mismatch counted (the
// observer feeds edge_exporter_contract_mismatches_total) and, at most once
// per check and collector an hour, one warning with the evidence and the
// config key that changes the assumption. A wrong assumption repeats on every
// answer; one line an hour says it without drowning the log.
import type { CollectorLogger } from '../collector.js';

import type { ContractCheck, Mismatch } from './checks.js';
import type { Clock } from '../../shared/clock.js';

interface MismatchObserver {
  onMismatch(check: ContractCheck, count: number): void;
}

const MISMATCH_LOG_EVERY_MS = 3_600_000;

export class MismatchReporter {
  private readonly lastLogged = new Map<string, number>();

  constructor(
    private readonly deps: { readonly log: CollectorLogger; readonly clock: Clock; readonly observer?: MismatchObserver | undefined },
  ) {}

  report(collector: string, mismatches: readonly Mismatch[]): void {
    for (const m of mismatches) {
      this.deps.observer?.onMismatch(m.check, 1);
      const key = `${m.check}\u0000${collector}`;
      const now = this.deps.clock.now();
      const last = this.lastLogged.get(key);
      if (last !== undefined && now - last < MISMATCH_LOG_EVERY_MS) continue;
      this.lastLogged.set(key, now);
      this.deps.log.warn(
        {
          collector, check: m.check, operation: m.operation, field: m.field, assumed: m.assumed, seen: m.seen,
          ...(m.configKey === undefined ? {} : { configKey: configPath(collector, m.configKey) }),
          ...(m.suggest === undefined ? {} : { suggest: m.suggest }),
        },
        `upstream answer contradicts an assumption (${m.check}); logged at most once an hour per check and collector`,
      );
    }
  }
}

/** A collector-relative key (`interval`, `delay`) as its full config path; others are already full. */
export function configPath(collector: string, key: string): string {
  return key.includes('.') ? key : `collectors.${collector.replaceAll('-', '_')}.${key}`;
}
