// The one time source every room reads; tests pass a fake one (or fake timers).

export interface Clock {
  now(): number;
}

export const SYSTEM_CLOCK: Clock = Object.freeze({ now: () => Date.now() });
