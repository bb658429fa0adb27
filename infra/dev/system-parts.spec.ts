import { describe, expect, it } from 'vitest';
import {
  choosePostgres,
  decideAptInstall,
  decideKubectl,
  DEFAULT_TEST_POSTGRES_URL,
  ensureAptPart,
  ensureChromium,
  kustomizeMajor,
  MissingSystemPartError,
  nothingAnswers,
  type AptPart,
  type Host,
  type SystemContext,
} from './system-parts.ts';

const root: Host = { root: true, sudo: false, apt: true };
const sudoer: Host = { root: false, sudo: true, apt: true };
const plainUser: Host = { root: false, sudo: false, apt: true };
const noApt: Host = { root: true, sudo: false, apt: false };

/**
 * A machine whose commands are recorded instead of run: `known` are the packages apt-cache has, and an
 * install of one of `provides` makes the part appear.
 */
function fakeMachine(host: Host, options: { known?: string[]; installFails?: boolean } = {}) {
  const commands: string[] = [];
  const installed = new Set<string>();
  const lines: string[] = [];
  const context: SystemContext = {
    host,
    aptUpdated: false,
    log: (line) => lines.push(line),
    run: (command, args) => {
      const line = [command, ...args].join(' ');
      commands.push(line);
      if (command === 'apt-cache') return (options.known ?? []).includes(args.at(-1) ?? '') ? 0 : 100;
      const install = args.indexOf('install');
      if (install >= 0) {
        if (options.installFails) return 100;
        installed.add(args.at(-1) ?? '');
      }
      return 0;
    },
  };
  const part = (name: string, packages: string[]): AptPart<string> => ({
    part: name,
    why: 'the test needs it',
    packages,
    probe: () => packages.find((pkg) => installed.has(pkg)),
    describe: (found) => `from ${found}`,
  });
  return { context, commands, lines, installed, part };
}

describe('decideAptInstall', () => {
  it('installs directly as root', () => {
    expect(decideAptInstall(root, 'nginx-light')).toEqual({ kind: 'install', prefix: [] });
  });

  it('installs through sudo -n when not root but sudo needs no password', () => {
    expect(decideAptInstall(sudoer, 'nginx-light')).toEqual({ kind: 'install', prefix: ['sudo', '-n'] });
  });

  it('stops with the exact command when neither root nor sudo is available', () => {
    expect(decideAptInstall(plainUser, 'nginx-light')).toMatchObject({
      kind: 'stop',
      command: 'sudo apt-get update && sudo apt-get install -y nginx-light',
    });
  });

  it('stops naming the Debian package when there is no apt-get', () => {
    const decision = decideAptInstall(noApt, 'chromium');
    expect(decision).toMatchObject({ kind: 'stop' });
    expect(decision.kind === 'stop' && decision.command).toBeUndefined();
    expect(decision.kind === 'stop' && decision.reason).toMatch(/no apt-get.*chromium/);
  });
});

describe('ensureAptPart', () => {
  it('runs nothing when the part is present', () => {
    const machine = fakeMachine(root);
    machine.installed.add('nginx-light');
    expect(ensureAptPart(machine.context, machine.part('nginx', ['nginx-light']))).toBe('nginx-light');
    expect(machine.commands).toEqual([]);
    expect(machine.lines[0]).toMatch(/^nginx: from nginx-light \(\d+\.\d s\)$/);
  });

  it('as root refreshes the lists, installs the missing package non-interactively and returns what it probed', () => {
    const machine = fakeMachine(root, { known: ['nginx-light'] });
    expect(ensureAptPart(machine.context, machine.part('nginx', ['nginx-light']))).toBe('nginx-light');
    expect(machine.commands).toEqual([
      'env DEBIAN_FRONTEND=noninteractive apt-get update -q',
      'apt-cache show --no-all-versions nginx-light',
      'env DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx-light',
    ]);
    expect(machine.lines.at(-1)).toMatch(/^nginx: installed nginx-light, from nginx-light \(\d+\.\d s\)$/);
  });

  it('goes through sudo -n when not root', () => {
    const machine = fakeMachine(sudoer, { known: ['chromium'] });
    ensureAptPart(machine.context, machine.part('chromium', ['chromium']));
    expect(machine.commands.filter((line) => line.startsWith('sudo'))).toEqual([
      'sudo -n env DEBIAN_FRONTEND=noninteractive apt-get update -q',
      'sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium',
    ]);
  });

  it('refreshes the package lists once per run, however many parts are missing', () => {
    const machine = fakeMachine(root, { known: ['chromium', 'nginx-light', 'openjdk-17-jre-headless'] });
    ensureAptPart(machine.context, machine.part('java', ['openjdk-17-jre-headless']));
    ensureAptPart(machine.context, machine.part('chromium', ['chromium']));
    ensureAptPart(machine.context, machine.part('nginx', ['nginx-light']));
    expect(machine.commands.filter((line) => line.includes('apt-get update'))).toHaveLength(1);
    expect(machine.commands.filter((line) => line.includes('apt-get install'))).toHaveLength(3);
  });

  it('installs the first package this release has when the preferred name is gone', () => {
    const machine = fakeMachine(root, { known: ['nginx'] });
    expect(ensureAptPart(machine.context, machine.part('nginx', ['nginx-light', 'nginx']))).toBe('nginx');
    expect(machine.commands.at(-1)).toBe('env DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx');
  });

  it('stops when apt knows none of the packages', () => {
    const machine = fakeMachine(root, { known: [] });
    expect(() => ensureAptPart(machine.context, machine.part('java', ['openjdk-17-jre-headless']))).toThrow(
      /apt knows none of its packages \(openjdk-17-jre-headless\)/,
    );
    expect(machine.commands.some((line) => line.includes('install'))).toBe(false);
  });

  it('stops with the command when the install fails or does not give the part', () => {
    const machine = fakeMachine(root, { known: ['chromium'], installFails: true });
    const attempt = () => ensureAptPart(machine.context, machine.part('chromium', ['chromium']));
    expect(attempt).toThrow(MissingSystemPartError);
    expect(attempt).toThrow(/Run: apt-get install -y chromium/);
  });

  it('as a user without sudo runs nothing and names the exact command', () => {
    const machine = fakeMachine(plainUser, { known: ['nginx-light'] });
    let error: unknown;
    try {
      ensureAptPart(machine.context, machine.part('nginx', ['nginx-light', 'nginx']));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(MissingSystemPartError);
    expect((error as MissingSystemPartError).command).toBe(
      'sudo apt-get update && sudo apt-get install -y nginx-light',
    );
    expect(machine.commands).toEqual([]);
  });
});

describe('ensureChromium', () => {
  it('does not install anything when CHROMIUM_PATH names a missing file: the person chose that browser', () => {
    const machine = fakeMachine(root, { known: ['chromium'] });
    expect(() => ensureChromium(machine.context, { CHROMIUM_PATH: '/nonexistent/chrome' })).toThrow(
      /CHROMIUM_PATH is \/nonexistent\/chrome/,
    );
    expect(machine.commands).toEqual([]);
  });
});

describe('kubectl', () => {
  it('reads the kustomize version kubectl reports', () => {
    const modern = JSON.stringify({ clientVersion: { gitVersion: 'v1.32.4' }, kustomizeVersion: 'v5.5.0' });
    expect(kustomizeMajor(modern)).toBe(5);
    // kubectl 1.20 (Debian 12's kubernetes-client) reports no kustomize version.
    expect(kustomizeMajor(JSON.stringify({ clientVersion: { gitVersion: 'v1.20.15' } }))).toBeUndefined();
    expect(kustomizeMajor('not json')).toBeUndefined();
  });

  it("uses the machine's kubectl only when its kustomize renders infra/k8s, else the npm-packaged one", () => {
    expect(decideKubectl({ kustomizeMajor: 5 })).toBe('path');
    expect(decideKubectl({ kustomizeMajor: 4 })).toBe('packaged');
    expect(decideKubectl({ kustomizeMajor: undefined })).toBe('packaged');
    expect(decideKubectl(undefined)).toBe('packaged');
  });
});

describe('choosePostgres', () => {
  it('uses TEST_POSTGRES_URL whatever else is set', () => {
    expect(
      choosePostgres({ TEST_POSTGRES_URL: 'postgres://db:5433/postgres', ATRIUM_TEST_POSTGRES: 'embedded' }),
    ).toEqual({ kind: 'configured', url: 'postgres://db:5433/postgres' });
  });

  it('starts a server of its own when ATRIUM_TEST_POSTGRES=embedded', () => {
    expect(choosePostgres({ ATRIUM_TEST_POSTGRES: 'embedded' })).toEqual({ kind: 'embedded' });
  });

  it('otherwise tries the default server first', () => {
    expect(choosePostgres({})).toEqual({ kind: 'default', url: DEFAULT_TEST_POSTGRES_URL });
    expect(choosePostgres({ ATRIUM_TEST_POSTGRES: 'auto' })).toEqual({
      kind: 'default',
      url: DEFAULT_TEST_POSTGRES_URL,
    });
  });

  it('refuses an unknown mode rather than guessing', () => {
    expect(() => choosePostgres({ ATRIUM_TEST_POSTGRES: 'system' })).toThrow(/"auto".*"embedded"/);
  });

  it('starts its own server only when nothing answers, not when a server refuses the login', () => {
    expect(nothingAnswers(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(
      true,
    );
    expect(nothingAnswers(new Error('Connection terminated due to connection timeout'))).toBe(true);
    expect(
      nothingAnswers(Object.assign(new Error('password authentication failed'), { code: '28P01' })),
    ).toBe(false);
  });
});
