// Preloaded into a daemon child process (`node --import tsx --import <this
// file> src/cli/main.ts ...`): the CLI has no clock option, so the child's
// Date.now is moved onto the test's simulated time by
// EDGE_TEST_CLOCK_OFFSET_MS (the simulator's fixed now minus the wall clock
// at spawn). Time still runs at its normal rate from there.
const offset = Number(process.env.EDGE_TEST_CLOCK_OFFSET_MS ?? '0');
if (!Number.isFinite(offset)) throw new Error(`EDGE_TEST_CLOCK_OFFSET_MS is not a number: ${process.env.EDGE_TEST_CLOCK_OFFSET_MS}`);
const wall = Date.now.bind(Date);
Date.now = () => wall() + offset;
