import { remoteNameSchema } from '../../services/api/src/registry/registry.schemas.ts';
import { REMOTE_CONTAINER_NAME, REMOTE_CONTAINER_NAME_MESSAGE } from '../../shell/sdk/build/remote-config.ts';

/**
 * Why `name` cannot name a new remote, or undefined. A remote's name is its registry name (the API's rule),
 * its Module Federation container name and a JavaScript global (the build's rule), and its folder under
 * remotes/: it must pass both rules. The only place the tooling asks; when the rule is written once for the
 * API, the build and the shell, this module imports that instead.
 */
export function remoteNameProblem(name: string): string | undefined {
  const registry = remoteNameSchema.safeParse(name);
  if (!registry.success) return `"${name}" is not a remote name: it ${registry.error.issues[0]?.message}.`;
  if (!REMOTE_CONTAINER_NAME.test(name)) {
    return `"${name}" is not a remote name: it becomes a JavaScript global, so it must be ${REMOTE_CONTAINER_NAME_MESSAGE}.`;
  }
  return undefined;
}
