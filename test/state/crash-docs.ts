// The documents crash-writer.ts saves: each one follows from (name, seq), so
// the parent can tell a whole document from a torn or mixed one without being
// sent its content. They grow with seq (wrapping at about 150 kB) so saves of
// many sizes are in flight when the kill lands.
import { z } from 'zod';

export const CRASH_NAMES = ['ledger-a', 'ledger-b', 'checkpoint-c'] as const;

export const crashDocSchema = z.strictObject({ name: z.string(), seq: z.number().int(), items: z.array(z.string()) });
type CrashDoc = z.output<typeof crashDocSchema>;

export function crashDoc(name: string, seq: number): CrashDoc {
  const length = (seq * 37) % 6000;
  return { name, seq, items: Array.from({ length }, (_, i) => `${name}:${seq}:${i}:${(seq * 31 + i) % 97}`) };
}
