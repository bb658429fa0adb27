import { remoteNameProblem as ruleProblem } from '@atrium/sdk/remote-rules';

/**
 * Why `name` cannot name a new remote, or undefined. A remote's name is its registry name, its Module
 * Federation container name (a JavaScript global) and its folder under remotes/: the one rule the API, the
 * release CLI, the build and the shell apply (shell/sdk/src/generated/remote-rules.ts).
 */
export function remoteNameProblem(name: string): string | undefined {
  const problem = ruleProblem(name);
  return problem === undefined ? undefined : `"${name}" is not a remote name: it ${problem}.`;
}
