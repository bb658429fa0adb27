// The container stack's release step for the bundled remotes (remotes/*), each already built into its dist/:
//   node infra/release-store/publish-bundled.ts               create each remote the registry lacks (as the
//                                                             platform client), then upload + register +
//                                                             activate each as its owner (compose `publish`)
//   node infra/release-store/publish-bundled.ts --store-only  only lay the releases out in the store folder
//                                                             (the Kubernetes release store's init container)
// Configuration is the release CLI's (ATRIUM_RELEASE_STORE_DIR, ATRIUM_RELEASE_STORE_URL, ATRIUM_API_URL,
// ATRIUM_ISSUER_URL, ATRIUM_DEPLOYER_SECRET; see tools/release-cli/src/release.ts) and ATRIUM_PLATFORM_SECRET, the
// secret of atrium-platform, which creates the remotes and owns the admin console.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  createRemotes,
  listRemotePackages,
  platformCredentialsFromEnv,
  publishRelease,
  releaseTargetFromEnv,
  targetForOwner,
} from '@atrium/release-cli/publish-release';
import { VersionExistsError } from '@atrium/release-cli/registry-client';
import { ReleaseError } from '@atrium/release-cli/release-error';
import { uploadRelease } from '@atrium/release-cli/release-store';

const { values } = parseArgs({ options: { 'store-only': { type: 'boolean', default: false } } });
const target = releaseTargetFromEnv();
const log = (line: string) => console.log(`[publish] ${line}`);

const platform = platformCredentialsFromEnv();
const remotes = listRemotePackages();

let failed = false;
if (!values['store-only']) {
  try {
    await createRemotes(remotes, target, platform, log);
  } catch (error) {
    if (!(error instanceof ReleaseError)) throw error;
    console.error(`[publish] creating the remotes failed: ${error.message}`);
    failed = true;
  }
}
for (const remote of remotes) {
  const name = `${remote.atrium.remote} ${remote.version}`;
  try {
    if (values['store-only']) {
      const outcome = uploadRelease({
        sourceDir: join(remote.dir, 'dist'),
        storeDir: target.storeDir,
        remote: remote.atrium.remote,
        version: remote.version,
      });
      log(`${name}: ${outcome} in ${target.storeDir}`);
      continue;
    }
    await publishRelease({
      remote,
      target: targetForOwner(target, remote.atrium.owner, platform),
      build: false,
      activate: true,
      log: (line) => log(`${name}: ${line}`),
    });
  } catch (error) {
    // A restart of the stack finds its versions registered; the active version may be a deliberate rollback.
    if (error instanceof VersionExistsError) {
      log(`${name} is already registered; activation left as it is`);
    } else if (error instanceof ReleaseError) {
      console.error(`[publish] ${name} failed: ${error.message}`);
      failed = true;
    } else {
      throw error;
    }
  }
}
process.exitCode = failed ? 1 : 0;
