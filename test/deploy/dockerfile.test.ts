// The Dockerfile and .dockerignore, checked as text (no Docker engine is
// needed): an official Node LTS base, a build stage and a runtime stage with
// production dependencies only, a numeric non-root user, the config and state
// volumes, the port, a HEALTHCHECK on /healthz and the signal; and a build
// context that holds every file the Dockerfile copies and nothing local.
import { existsSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { parseHostPort } from '../../src/config/fields.js';
import {
  dockerignoreIncludes,
  dockerignorePatterns,
  execForm,
  fromRoot,
  parseDockerfile,
  readText,
  repoPath,
  walk,
  type Instruction,
  type Stage,
} from './files.js';

const dockerfile = parseDockerfile(readText(fromRoot('Dockerfile')));
const ignore = dockerignorePatterns(readText(fromRoot('.dockerignore')));
const runtime = dockerfile.stages.at(-1);
const build = dockerfile.stages.find((s) => s.name === 'build');
const CONFIG_PATH = '/etc/edge-exporter/config.yaml';
const STATE_DIR = '/var/lib/edge-exporter';

function stage(s: Stage | undefined): Stage {
  if (!s) throw new Error('stage missing from the Dockerfile');
  return s;
}
const all = (s: Stage | undefined, keyword: string): Instruction[] => stage(s).instructions.filter((i) => i.keyword === keyword);
function one(s: Stage | undefined, keyword: string): string {
  const found = all(s, keyword);
  expect(found, `exactly one ${keyword} in the stage`).toHaveLength(1);
  return found[0]?.args ?? '';
}

/** COPY/ADD sources from the build context (not --from another stage), and the destination. */
function contextCopies(s: Stage | undefined): { sources: string[]; dest: string }[] {
  return all(s, 'COPY')
    .filter((i) => !i.args.includes('--from='))
    .map((i) => {
      const words = i.args.split(' ').filter((w) => !w.startsWith('--'));
      return { sources: words.slice(0, -1), dest: words.at(-1) ?? '' };
    });
}

describe('Dockerfile', () => {
  it('builds on an official Node image of an LTS (even-numbered) line the package supports', () => {
    const image = dockerfile.globalArgs.get('NODE_IMAGE') ?? '';
    const match = /^node:(\d+)-[a-z]+-slim$/.exec(image);
    expect(match, `NODE_IMAGE default "${image}"`).not.toBeNull();
    const major = Number(match?.[1]);
    expect(major % 2).toBe(0);
    expect(major).toBeGreaterThanOrEqual(24);
    for (const s of dockerfile.stages) expect(s.from).toBe('${NODE_IMAGE}');
  });

  it('has a build stage that installs every dependency and compiles, and a separate runtime stage', () => {
    expect(dockerfile.stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    const runs = all(build, 'RUN').map((i) => i.args);
    expect(runs.some((r) => /^npm ci\b/.test(r) && !r.includes('--omit=dev'))).toBe(true);
    expect(runs).toContain('npm run build');
  });

  it('runtime: production dependencies only, the compiled dist/ and nothing else from the build stage', () => {
    const installs = all(runtime, 'RUN').filter((i) => /\bnpm (ci|install|i)\b/.test(i.args));
    expect(installs).toHaveLength(1);
    expect(installs[0]?.args).toMatch(/npm ci --omit=dev\b/);
    const fromBuild = all(runtime, 'COPY').filter((i) => i.args.includes('--from='));
    expect(fromBuild.map((i) => i.args)).toEqual(['--from=build /src/dist ./dist']);
    expect(one(runtime, 'ENV')).toMatch(/NODE_ENV=production/);
  });

  it('runtime: a numeric non-root USER, the one the Kubernetes manifests run as', () => {
    const [uid, gid] = one(runtime, 'USER').split(':');
    expect(uid).toBe('10001');
    expect(gid).toBe('10001');
    expect(all(runtime, 'RUN').some((i) => i.args.includes(`install -d -o ${uid} -g ${gid} -m 0700 ${STATE_DIR}`))).toBe(true);
  });

  it('runtime: config and state are volumes, 9810 is exposed, SIGTERM stops it', () => {
    expect(execForm(one(runtime, 'VOLUME'))).toEqual(['/etc/edge-exporter', STATE_DIR]);
    expect(one(runtime, 'EXPOSE')).toBe('9810');
    expect(one(runtime, 'STOPSIGNAL')).toBe('SIGTERM');
  });

  it('runtime: ENTRYPOINT is the CLI under the node flags of npm start, and CMD runs the daemon on the default config, which the image contains', () => {
    // The node flags npm start runs the daemon with, and no others: the image runs what the benchmarks measure.
    const start = (JSON.parse(readText(fromRoot('package.json'))) as { scripts: { start: string } }).scripts.start.split(' ');
    const flags = start.slice(1, start.indexOf('dist/cli/main.js'));
    expect(execForm(one(runtime, 'ENTRYPOINT'))).toEqual(['node', ...flags, 'dist/cli/main.js']);
    expect(execForm(one(runtime, 'CMD'))).toEqual(['run', '--config', CONFIG_PATH]);
    expect(contextCopies(runtime)).toContainEqual({ sources: ['deploy/container/config.yaml'], dest: CONFIG_PATH });
  });

  it('runtime: the HEALTHCHECK asks /healthz on the exposed port with node itself (no curl in slim images)', () => {
    const healthcheck = one(runtime, 'HEALTHCHECK');
    const command = execForm(healthcheck.replace(/^.*?CMD /, ''));
    expect(command?.slice(0, 2)).toEqual(['node', '-e']);
    expect(command?.[2]).toContain('process.env.HEALTHCHECK_URL');
    expect(command?.[2]).toContain('process.exit(r.ok ? 0 : 1)');
    expect(healthcheck).toMatch(/--timeout=\d+s/);
    const url = /HEALTHCHECK_URL=(\S+)/.exec(one(runtime, 'ENV'))?.[1] ?? '';
    expect(new URL(url).pathname).toBe('/healthz');
    expect(new URL(url).port).toBe(one(runtime, 'EXPOSE'));
  });

  it('the default config listens on the exposed port and keeps state in the state volume', () => {
    const config = loadConfig({ file: fromRoot('deploy/container/config.yaml'), env: {} });
    expect(String(parseHostPort(config.server.listen)?.port)).toBe(one(runtime, 'EXPOSE'));
    expect(config.state_dir).toBe(STATE_DIR);
  });
});

describe('.dockerignore', () => {
  const copied = [...contextCopies(build), ...contextCopies(runtime)].flatMap((c) => c.sources);

  it.each(copied)('lets %s (every file of it) into the build context', (source) => {
    const path = fromRoot(source);
    expect(existsSync(path), `${source} exists`).toBe(true);
    const files = statSync(path).isDirectory() ? walk(path).map(repoPath) : [source];
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => !dockerignoreIncludes(ignore, f))).toEqual([]);
  });

  it.each(['node_modules/yaml/package.json', 'dist/cli/main.js', 'state/waf-events-checkpoint.json', '.git/HEAD', 'coverage/index.html', 'test/deploy/deploy.test.ts', 'src/node_modules/x.js', '.env', 'debug.log'])(
    'keeps %s out',
    (path) => {
      expect(dockerignoreIncludes(ignore, path)).toBe(false);
    },
  );
});
