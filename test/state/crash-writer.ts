// Child process of crash-write.test.ts: saves documents through StateStore as
// fast as it can, on every name at once, until it is SIGKILLed. Around each
// save it prints `begin NAME SEQ` and `saved NAME SEQ`; stdout to a pipe is
// synchronous on Linux, so every line printed before the kill reaches the
// parent, and the parent knows which save may have been cut short.
// Usage: node --import tsx test/state/crash-writer.ts DIR FIRST_SEQ
import { StateStore } from '../../src/state/store.js';
import { CRASH_NAMES, crashDoc } from './crash-docs.js';

const [dir, first] = process.argv.slice(2);
if (dir === undefined || first === undefined) throw new Error('usage: crash-writer.ts DIR FIRST_SEQ');
const store = new StateStore(dir);
let seq = Number(first);
process.stdout.write('ready\n');
await Promise.all(
  CRASH_NAMES.map(async (name) => {
    for (;;) {
      const mine = seq++;
      process.stdout.write(`begin ${name} ${mine}\n`);
      await store.save(name, crashDoc(name, mine));
      process.stdout.write(`saved ${name} ${mine}\n`);
    }
  }),
);
