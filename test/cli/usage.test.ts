// What a person meets on the command line: --version from the real process,
// "did you mean" for a command, an operation and every option of every
// command, and a usage error answered with the usage of the one command at
// fault (never the whole top-level list). Nothing here reaches an upstream:
// each refusal comes before a config is loaded or a port is opened.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli, cliProcess } from './helpers.js';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
const TOP_LEVEL = 'commands:';

/** The command names the top-level usage lists. */
async function commands(): Promise<string[]> {
  const { out } = await cli(['--help']);
  return [...out.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((m) => m[1] ?? '');
}

/** The long options a command's --help names. */
async function optionsOf(command: string): Promise<string[]> {
  const { out, code } = await cli([command, '--help']);
  expect(code).toBe(0);
  return [...new Set([...out.matchAll(/--([a-z][a-z.-]*)/g)].map((m) => m[1] ?? ''))].filter((o) => o !== 'help');
}

describe('--version', () => {
  it.each([['--version'], ['version']])('%s prints the package version, then node, from the real process', async (arg) => {
    const r = await cliProcess([arg]);
    expect(r).toEqual({ code: 0, out: `edge-exporter ${pkg.version}\nnode ${process.version} (${process.platform}/${process.arch})\n`, err: '' });
  });

  it('version with an argument is a usage error showing the version usage only', async () => {
    const r = await cli(['version', 'now']);
    expect(r.code).toBe(2);
    expect(r.err).toBe('edge-exporter: version takes no arguments, got "now"\n\nusage: edge-exporter version\n');
  });
});

describe('did you mean', () => {
  it('lists every command, each with its own --help', async () => {
    expect(await commands()).toEqual(['run', 'simulate', 'call', 'check-config', 'doctor', 'version']);
  });

  it('a misspelt command names the closest, under the top-level usage', async () => {
    const r = await cli(['chek-config']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^edge-exporter: unknown command "chek-config" \(did you mean "check-config"\?\)\n\nusage: edge-exporter <command>/);
  });

  it.each([
    ['listDomain', 'listDomains'],
    ['getpackages', 'getPackages'],
    ['describeL7CCAtack', 'describeL7CCAttack'],
  ])('call %s names operation %s, under the call usage only', async (typo, real) => {
    const r = await cli(['call', typo]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^edge-exporter: unknown operation "${typo}" \\(did you mean "${real}"\\?\\)\n\nusage: edge-exporter call OPERATION`));
    expect(r.err).not.toContain(TOP_LEVEL);
  });

  it('an operation nothing is near gets no guess', async () => {
    const r = await cli(['call', 'frobnicate']);
    expect(r.err).toMatch(/^edge-exporter: unknown operation "frobnicate"\n/);
  });

  it('every option of every command: a letter dropped names the option, under that command\'s usage', async () => {
    let checked = 0;
    for (const command of await commands()) {
      const usage = (await cli([command, '--help'])).out.trim();
      for (const option of await optionsOf(command)) {
        const typo = option.slice(0, 1) + option.slice(2);
        const r = await cli([command, `--${typo}`, 'x']);
        expect(r.code, `${command} --${typo}`).toBe(2);
        expect(r.err, `${command} --${typo}`).toMatch(new RegExp(`^edge-exporter: unknown option --${typo.replace(/\./g, '\\.')} \\(did you mean --${option.replace(/\./g, '\\.')}\\?\\); options: `));
        expect(r.err.endsWith(`\n\n${usage}\n`), `${command} --${typo}`).toBe(true);
        checked++;
      }
    }
    // run 4, simulate 5, call 4, check-config 2, doctor 3.
    expect(checked).toBe(18);
  });

  it('an option nothing is near lists the real ones: run --retries', async () => {
    const r = await cli(['run', '--retries', '3']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^edge-exporter: unknown option --retries; options: --config, --listen, --web\.config\.file, --once\n\nusage: edge-exporter run /);
  });
});

describe('a usage error shows the one command\'s usage', () => {
  it.each([
    ['a bad --body', ['call', 'getPackages', '--body', '{oops'], /the request body is not valid JSON/, 'call OPERATION'],
    ['a missing operation', ['call'], /call takes exactly one OPERATION/, 'call OPERATION'],
    ['a missing --config', ['check-config'], /check-config needs --config FILE/, 'check-config --config FILE'],
    ['an option without its value', ['doctor', '--config'], /Option '-c, --config <value>' argument missing/, 'doctor '],
    ['a stray argument', ['simulate', 'now'], /Unexpected argument 'now'/, 'simulate '],
    ['a bad --listen', ['run', '--listen', 'nowhere'], /invalid --listen "nowhere"/, 'run '],
  ])('%s', async (_what, argv, message, usage) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).toContain(`\n\nusage: edge-exporter ${usage}`);
    expect(r.err).not.toContain(TOP_LEVEL);
    expect(r.out).toBe('');
  });

  it.each([['run'], ['simulate'], ['check-config'], ['doctor'], ['call']])('%s --help prints its usage to stdout, exit 0', async (command) => {
    const r = await cli([command, '--help']);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(new RegExp(`^usage: edge-exporter ${command}\\b`));
  });
});
