import type { ReleaseTypes } from '@atrium/sdk/release-types';
import { remoteNameProblem } from '@atrium/sdk/remote-rules';
import type { ReleaseTarget } from './publish-release.ts';
import { getDeployerToken, registeredVersions } from './registry-client.ts';
import { ReleaseError } from './release-error.ts';
import { readStoredTypes, writeTypes } from './release-types.ts';

/**
 * `npm run types -- pull <remote>[@<version>]`: writes the types a release of a remote exposes to
 * `<outDir>/<remote>/` (see {@link writeTypes}). Without a version, the remote's active version, which the
 * registry tells its owner or an administrator (the target's deployer credentials).
 *
 * @throws ReleaseError saying what to do when the remote, the version or its types cannot be found.
 */
export async function pullTypes(options: {
  /** `<remote>@<version>` or `<remote>`. */
  release: string;
  target: ReleaseTarget;
  outDir: string;
}): Promise<{ types: ReleaseTypes; folder: string }> {
  const [remote = '', version] = options.release.split('@');
  const nameProblem = remoteNameProblem(remote);
  if (nameProblem) throw new ReleaseError(`"${remote}" is not a remote's name: it ${nameProblem}.`);
  const { target } = options;
  const chosen =
    version ??
    (await registeredVersions({ apiUrl: target.apiUrl, token: await getDeployerToken(target), remote }))
      .active;
  if (!chosen) {
    throw new ReleaseError(
      `${remote} has no active version (or the registry at ${target.apiUrl} does not know it): name one, ` +
        `as in ${remote}@1.0.0.`,
    );
  }
  const types = await readStoredTypes(target, remote, chosen);
  if (!types) {
    throw new ReleaseError(
      `${remote} ${chosen} has no types in the release store: it was published before releases kept them, ` +
        'or it is not a release there. Pull another version.',
    );
  }
  return { types, folder: writeTypes(types, options.outDir) };
}
