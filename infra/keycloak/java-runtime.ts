import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Keycloak 26 runs on Java 17, 21 and 25. */
export const MINIMUM_JAVA_MAJOR = 17;

/** A Java runtime that can run Keycloak. */
export interface JavaRuntime {
  /** Absolute path of the `java` executable. */
  readonly executable: string;
  /** Feature release, e.g. 17 or 21. */
  readonly major: number;
  /** The version string `java -version` printed, e.g. `17.0.15`. */
  readonly version: string;
}

/**
 * Reads the version from `java -version` output (printed on stderr), for example
 * `openjdk version "17.0.15" 2025-04-15`, `java version "1.8.0_381"` or `openjdk version "25" 2025-09-16`.
 * Returns undefined when the text carries no version.
 */
export function parseJavaVersion(output: string): { major: number; version: string } | undefined {
  const match = /version "([^"]+)"/.exec(output);
  if (!match?.[1]) return undefined;
  const version = match[1];
  const numbers = /^(\d+)(?:\.(\d+))?/.exec(version);
  if (!numbers?.[1]) return undefined;
  const first = Number(numbers[1]);
  // Java 8 and older call themselves 1.x.
  const major = first === 1 && numbers[2] ? Number(numbers[2]) : first;
  return { major, version };
}

/** The places to look for `java`, in order of preference: JAVA_HOME, PATH, then the Debian/Ubuntu JVM folder. */
export function javaCandidates(env: NodeJS.ProcessEnv, jvmRoot = '/usr/lib/jvm'): string[] {
  const candidates: string[] = [];
  if (env.JAVA_HOME) candidates.push(join(env.JAVA_HOME, 'bin', 'java'));
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir) candidates.push(join(dir, 'java'));
  }
  if (existsSync(jvmRoot)) {
    // Newest first, so a machine with several JDKs uses the most recent one it has.
    const jvms = readdirSync(jvmRoot).sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
    for (const jvm of jvms) candidates.push(join(jvmRoot, jvm, 'bin', 'java'));
  }
  return [...new Set(candidates)];
}

/** Thrown when no Java 17+ can be found; the message says what to install. */
export class JavaNotFoundError extends Error {
  constructor(rejected: readonly string[]) {
    super(
      [
        `Keycloak needs Java ${MINIMUM_JAVA_MAJOR} or newer, and none was found` +
          (rejected.length > 0
            ? ` (found only: ${rejected.join('; ')}).`
            : ' (no java in JAVA_HOME, on PATH or in /usr/lib/jvm).'),
        'Install one, for example on Debian/Ubuntu: `sudo apt-get install openjdk-17-jre-headless`',
        '(any Java 17, 21 or 25 works; set JAVA_HOME if it is not on PATH),',
        'or run the whole platform in containers instead: `docker compose up`.',
      ].join('\n'),
    );
    this.name = 'JavaNotFoundError';
  }
}

/** Finds a Java runtime new enough for Keycloak, or throws {@link JavaNotFoundError}. */
export function findJava(env: NodeJS.ProcessEnv = process.env, jvmRoot?: string): JavaRuntime {
  const rejected: string[] = [];
  for (const executable of javaCandidates(env, jvmRoot)) {
    if (!existsSync(executable)) continue;
    const result = spawnSync(executable, ['-version'], { encoding: 'utf8', timeout: 15_000 });
    const parsed = parseJavaVersion(`${result.stderr ?? ''}\n${result.stdout ?? ''}`);
    if (!parsed) {
      rejected.push(`${executable} (could not run it or read its version)`);
      continue;
    }
    if (parsed.major < MINIMUM_JAVA_MAJOR) {
      rejected.push(`${executable} is Java ${parsed.version}`);
      continue;
    }
    return { executable, ...parsed };
  }
  throw new JavaNotFoundError(rejected);
}
