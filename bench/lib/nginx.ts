// nginx serving one directory as static files: the floor a scrape is compared
// with. Runs in the foreground (`daemon off`) from a temporary prefix on a
// loopback port with one worker, the same one core the exporter's event loop
// gets, and is stopped by the pid it was started with.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { freePort } from '../../test/support/ports.js';
import { join } from 'node:path';
import { Pool } from 'undici';

interface StaticServer {
  readonly url: string;
  stop(): Promise<void>;
}

function config(prefix: string, root: string, port: number, contentType: string): string {
  const temp = (name: string): string => join(prefix, 'tmp', name);
  return `
worker_processes 1;
daemon off;
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  server {
    listen 127.0.0.1:${port};
    root ${root};
    # gzip_static serves metrics.gz as is: the floor for a gzip scrape is a
    # precompressed file, as the exporter's is a cached deflate.
    location = /metrics { default_type "${contentType}"; gzip_static on; }
  }
}
`;
}

async function waitReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}`);
    const pool = new Pool(url, { connections: 1 });
    try {
      const res = await pool.request({ path: '/metrics', method: 'HEAD' });
      await res.body.dump();
      if (res.statusCode === 200) return;
    } catch {
      // not listening yet
    } finally {
      await pool.close();
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('nginx did not answer within 5 s');
}

/** Starts nginx serving `root` (which holds `metrics` and `metrics.gz`) under `prefix`. */
export async function startNginx(binary: string, prefix: string, root: string, contentType: string): Promise<StaticServer> {
  await mkdir(join(prefix, 'tmp'), { recursive: true });
  const port = await freePort();
  const conf = join(prefix, 'nginx.conf');
  await writeFile(conf, config(prefix, root, port, contentType));
  const stderr: Buffer[] = [];
  const child = spawn(binary, ['-p', prefix, '-e', join(prefix, 'error.log'), '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGQUIT'); // graceful: the master waits for its worker
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitReady(url, child, 5_000);
  } catch (err) {
    await stop();
    throw new Error(`${err instanceof Error ? err.message : String(err)}: ${Buffer.concat(stderr).toString('utf8').trim()}`, { cause: err });
  }
  return { url, stop };
}
