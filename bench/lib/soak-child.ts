// The soak's daemon in its own process (started by soak-remote.ts with
// --expose-gc and an IPC channel): the same inProcessDaemon the test drives,
// answering one message per call. Its heap holds the daemon only.
import { readFile } from 'node:fs/promises';
import { inProcessDaemon, type SoakDaemon } from './soak-daemon.js';

export type Request =
  | { readonly id: number; readonly op: 'runOnce' | 'forwardOnce'; readonly now: number }
  | { readonly id: number; readonly op: 'url' | 'restart' | 'memory' | 'warnings' | 'stop' };

export type Reply = { readonly id: number; readonly ok: true; readonly value: unknown } | { readonly id: number; readonly ok: false; readonly error: string };

function call(daemon: SoakDaemon, req: Request): Promise<unknown> {
  switch (req.op) {
    case 'runOnce': return daemon.runOnce(req.now);
    case 'forwardOnce': return daemon.forwardOnce(req.now);
    case 'url': return Promise.resolve(daemon.url());
    case 'restart': return daemon.restart().then(() => daemon.url());
    case 'memory': return daemon.memory();
    case 'warnings': return daemon.warnings();
    case 'stop': return daemon.stop();
  }
}

const send = (reply: Reply | { readonly ready: string }): void => void process.send?.(reply);
const file = process.argv[2];
if (file === undefined || process.send === undefined) throw new Error('usage: forked by soak-remote.ts with the config file as argument');
const daemon = await inProcessDaemon(await readFile(file, 'utf8'));
process.on('message', (req: Request) => {
  call(daemon, req).then(
    (value) => {
      send({ id: req.id, ok: true, value: value ?? null });
      if (req.op === 'stop') process.disconnect();
    },
    (err: unknown) => send({ id: req.id, ok: false, error: err instanceof Error ? err.stack ?? err.message : String(err) }),
  );
});
send({ ready: daemon.url() });
