// The error a state operation is expected to fail with, checked for its class.
import { expect } from 'vitest';

/** Awaits `promise`, expects it to reject with an instance of `type`, and returns that error. */
export async function rejectionOf<E extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(type);
  if (err instanceof type) return err;
  throw new Error(`expected a ${type.name}`);
}
