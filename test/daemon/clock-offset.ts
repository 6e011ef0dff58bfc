// Preloaded into a daemon child process (`node --import tsx --import <this
// file> src/cli/main.ts ...`): the CLI has no clock option, so the child's
// Date.now is moved onto the test's simulated time by
// EDGE_TEST_CLOCK_OFFSET_MS (the simulator's fixed now minus the wall clock
// at spawn). Time still runs at its normal rate from there. A test that moves
// the simulator's clock while the child runs names a file in
// EDGE_TEST_CLOCK_FILE: on SIGUSR2 the child reads its new offset from it and
// answers on stderr, so the test knows the move happened before it goes on.
import { readFileSync } from 'node:fs';

const parse = (text: string | undefined): number => {
  const value = Number(text ?? '0');
  if (!Number.isFinite(value)) throw new Error(`clock offset is not a number: ${text}`);
  return value;
};
let offset = parse(process.env.EDGE_TEST_CLOCK_OFFSET_MS);
const wall = Date.now.bind(Date);
Date.now = () => wall() + offset;
const file = process.env.EDGE_TEST_CLOCK_FILE;
if (file !== undefined) {
  process.on('SIGUSR2', () => {
    offset = parse(readFileSync(file, 'utf8').trim());
    process.stderr.write(`test clock offset ${offset}\n`);
  });
}
