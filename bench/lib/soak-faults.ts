// The soak's random faults: a seeded generator decides, step by step, whether
// a fault starts and which. Kinds are dealt from a shuffled deck (refilled
// when empty), so even a short run meets every kind and a long one meets them
// evenly. Most upstream faults last one step and hit one operation; an
// outage (every request 503) and the receiver being down last several steps.
import type { OperationName } from '../../src/api/operations.js';
import type { FaultRule } from '../../src/simulator/faults.js';
import { Rng } from '../../src/simulator/rng.js';

export const FAULT_KINDS = [
  'errorRate', 'outage', 'hang', 'unauthorized', 'malformedJson', 'truncatedBody', 'dataNull', 'latency', 'otlpDown', 'restart',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What one step runs under. */
interface StepFaults {
  /** The kind that started at this step, if any. */
  readonly started?: FaultKind;
  /** The operation a one-step fault aims at. */
  readonly operation?: OperationName;
  /** Simulator fault rules for this step. */
  readonly rules: readonly FaultRule[];
  /** The OTLP receiver answers 503 during this step. */
  readonly otlpDown: boolean;
  /** Restart the daemon gracefully after this step. */
  readonly restart: boolean;
}

/**
 * Rules of the one-step kinds, aimed at one operation picked at random, for
 * the whole step: a fault on describeLogV2 then reaches the WAF forwarder,
 * not only the WAF trend collector's requests before it. A hang is counted,
 * so a step costs at most a few upstream timeouts.
 */
const ONE_STEP: Readonly<Partial<Record<FaultKind, FaultRule>>> = {
  hang: { hang: true, count: 2 },
  unauthorized: { unauthorized: true },
  malformedJson: { malformedJson: true },
  truncatedBody: { truncatedBody: true },
  dataNull: { dataNull: true },
  latency: { latencyMs: 150 },
};
/** What the collectors and the WAF forwarder call every step. */
const TARGETS: readonly OperationName[] = ['describeL7DataV2', 'describeL7UsageData', 'describeL7CCAttack', 'describeLogV2'];
/**
 * `data: null` from describeLogV2 is the document's "nothing matched"
 * (docs/upstream-notes.md): a WAF trend bucket answered so is zero by
 * contract, so injecting it there would be a wrong answer, not a fault.
 */
const NULLABLE: readonly OperationName[] = TARGETS.filter((op) => op !== 'describeLogV2');
/** Upstream answering 503 to everything, for this many steps (well inside max_backfill). */
const OUTAGE_STEPS = [2, 15] as const;
const OTLP_DOWN_STEPS = [1, 5] as const;

export class FaultPlan {
  private readonly rng: Rng;
  private deck: FaultKind[] = [];
  private outageLeft = 0;
  private otlpLeft = 0;

  /**
   * @param rate chance that a fault starts at a step without one running
   * @param quiet steps at the start and end without faults: the first cycle
   *   sets every watermark, the last ones let everything catch up
   */
  constructor(seed: number, private readonly rate: number, private readonly steps: number, private readonly quiet: { head: number; tail: number }) {
    this.rng = new Rng(seed);
  }

  at(step: number): StepFaults {
    const calm = step < this.quiet.head || step >= this.steps - this.quiet.tail;
    if (calm) {
      // A fault still running when the tail begins ends there.
      this.outageLeft = 0;
      this.otlpLeft = 0;
    }
    const running = this.outageLeft > 0 || this.otlpLeft > 0;
    const started = !calm && !running && this.rng.chance(this.rate) ? this.deal() : undefined;
    if (started === 'outage') this.outageLeft = this.rng.int(...OUTAGE_STEPS);
    if (started === 'otlpDown') this.otlpLeft = this.rng.int(...OTLP_DOWN_STEPS);
    const outage = this.outageLeft > 0;
    const otlpDown = this.otlpLeft > 0;
    this.outageLeft = Math.max(0, this.outageLeft - 1);
    this.otlpLeft = Math.max(0, this.otlpLeft - 1);
    const aimed = started ? ONE_STEP[started] : undefined;
    const operation = aimed ? this.rng.pick(started === 'dataNull' ? NULLABLE : TARGETS) : undefined;
    const rules: FaultRule[] = outage ? [{ status5xx: 503 }] : started === 'errorRate' ? [{ errorRate: 0.3 }] : aimed && operation ? [{ ...aimed, operations: [operation] }] : [];
    return { ...(started ? { started } : {}), ...(operation ? { operation } : {}), rules, otlpDown, restart: started === 'restart' };
  }

  private deal(): FaultKind {
    if (this.deck.length === 0) {
      this.deck = [...FAULT_KINDS];
      for (let i = this.deck.length - 1; i > 0; i--) {
        const j = this.rng.int(0, i);
        [this.deck[i], this.deck[j]] = [this.deck[j] as FaultKind, this.deck[i] as FaultKind];
      }
    }
    return this.deck.pop() as FaultKind;
  }
}
