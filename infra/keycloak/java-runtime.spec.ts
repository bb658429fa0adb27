import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findJava, javaCandidates, JavaNotFoundError, parseJavaVersion } from './java-runtime.ts';

describe('parseJavaVersion', () => {
  it('reads the feature release of modern OpenJDK builds', () => {
    expect(parseJavaVersion('openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment')).toEqual({
      major: 17,
      version: '17.0.15',
    });
    expect(parseJavaVersion('openjdk version "25" 2025-09-16')).toEqual({ major: 25, version: '25' });
    expect(parseJavaVersion('openjdk version "21-ea" 2023-09-19')).toEqual({ major: 21, version: '21-ea' });
  });

  it('reads Java 8 and older, which call themselves 1.x', () => {
    expect(parseJavaVersion('java version "1.8.0_381"')?.major).toBe(8);
  });

  it('returns undefined for output without a version', () => {
    expect(parseJavaVersion('bash: java: command not found')).toBeUndefined();
  });
});

describe('findJava', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  /** A stand-in `java` that prints the given version line on stderr, as the real one does. */
  function fakeJavaHome(version: string): string {
    const home = mkdtempSync(join(tmpdir(), 'atrium-fake-jdk-'));
    dirs.push(home);
    mkdirSync(join(home, 'bin'));
    const java = join(home, 'bin', 'java');
    writeFileSync(java, `#!/bin/sh\necho 'openjdk version "${version}" 2025-01-01' >&2\n`);
    chmodSync(java, 0o755);
    return home;
  }

  it('prefers JAVA_HOME, then PATH, then the JVM folder', () => {
    const candidates = javaCandidates(
      { JAVA_HOME: '/opt/jdk', PATH: '/usr/local/bin:/usr/bin' },
      '/nonexistent',
    );
    expect(candidates).toEqual(['/opt/jdk/bin/java', '/usr/local/bin/java', '/usr/bin/java']);
  });

  it('skips a Java older than 17 and uses the next suitable one', () => {
    const old = fakeJavaHome('11.0.2');
    const recent = fakeJavaHome('21.0.4');
    const java = findJava({ JAVA_HOME: old, PATH: join(recent, 'bin') });
    expect(java).toEqual({ executable: join(recent, 'bin', 'java'), major: 21, version: '21.0.4' });
  });

  it('explains what to install when only an old Java exists', () => {
    const old = fakeJavaHome('11.0.2');
    const emptyJvmRoot = mkdtempSync(join(tmpdir(), 'atrium-no-jvms-'));
    dirs.push(emptyJvmRoot);
    let thrown: unknown;
    try {
      findJava({ JAVA_HOME: old, PATH: '' }, emptyJvmRoot);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(JavaNotFoundError);
    const message = (thrown as Error).message;
    expect(message).toContain(`${join(old, 'bin', 'java')} is Java 11.0.2`);
    expect(message).toContain('apt-get install openjdk-17-jre-headless');
    expect(message).toContain('docker compose up');
  });
});
