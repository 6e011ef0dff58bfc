// Child process of lock.test.ts: a second edge-exporter starting on a state
// directory. It takes the lock and prints `held`, then holds it until stdin
// closes (or it is killed); if the lock is refused it prints `refused CODE`
// and the message on one line and exits 3.
// Usage: node --import tsx test/state/lock-holder.ts DIR
import { acquireStateLock } from '../../src/state/lock.js';

const [dir] = process.argv.slice(2);
if (dir === undefined) throw new Error('usage: lock-holder.ts DIR');
try {
  const lock = await acquireStateLock(dir);
  process.stdout.write('held\n');
  process.stdin.resume();
  process.stdin.on('end', () => void lock.release().then(() => process.exit(0)));
} catch (err) {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'none';
  process.stdout.write(`refused ${code} ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(3);
}
