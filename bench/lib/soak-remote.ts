// The parent side of soak-child.ts: a SoakDaemon whose calls are messages to
// a child process started with --expose-gc (and the daemon's own node flags,
// src/cli/node-flags.ts), so memory() is the daemon's own heap after a full
// GC. Stopping it stops the daemon and the child.
import { fork } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';
import { ROOT } from './child.js';
import type { Reply, Request } from './soak-child.js';
import type { ForwardSummary, MemorySample, RunSummary, SoakDaemon, SoakDaemonFactory } from './soak-daemon.js';

type Op = Request['op'];

export const remoteDaemon: SoakDaemonFactory = async (configText) => {
  const dir = await mkdtemp(join(tmpdir(), 'edge-soak-child-'));
  const file = join(dir, 'config.yaml');
  await writeFile(file, configText);
  const child = fork(join(ROOT, 'bench/lib/soak-child.ts'), [file], {
    cwd: ROOT,
    execArgv: [...NODE_FLAGS, '--expose-gc', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let url = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`soak child exited with ${code} before it was ready`)));
    child.on('message', (msg: Reply | { ready: string }) => {
      if ('ready' in msg) {
        url = msg.ready;
        resolve();
        return;
      }
      const waiter = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.ok) waiter?.resolve(msg.value);
      else waiter?.reject(new Error(`soak child: ${msg.error}`));
    });
  });
  void exited.then(() => {
    for (const waiter of pending.values()) waiter.reject(new Error('soak child exited'));
    pending.clear();
  });
  const call = <T>(op: Op, now?: number): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: (v) => resolve(v as T), reject });
      child.send(now === undefined ? { id, op } : { id, op, now });
    });
  try {
    await ready;
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const daemon: SoakDaemon = {
    url: () => url,
    runOnce: (now) => call<RunSummary[]>('runOnce', now),
    forwardOnce: (now) => call<ForwardSummary>('forwardOnce', now),
    restart: async () => {
      url = await call<string>('restart');
    },
    memory: () => call<MemorySample>('memory'),
    warnings: () => call<Record<string, number>>('warnings'),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        await call('stop').catch(() => child.kill('SIGKILL'));
        // The daemon is stopped; a child that lingers on a handle is not worth waiting for.
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
  return daemon;
};
