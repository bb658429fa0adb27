// The container stack's release step for the bundled remotes (remotes/*), each already built into its dist/:
//   node infra/release-store/publish-bundled.ts               upload + register + activate each (compose `publish`)
//   node infra/release-store/publish-bundled.ts --store-only  only lay the releases out in the store folder
//                                                             (the Kubernetes release store's init container)
// Configuration is the release CLI's (ATRIUM_RELEASE_STORE_DIR, ATRIUM_RELEASE_STORE_URL, ATRIUM_API_URL,
// ATRIUM_ISSUER_URL, ATRIUM_DEPLOYER_SECRET); see infra/release/release.ts.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { listRemotePackages, publishRelease, releaseTargetFromEnv } from '../release/publish-release.ts';
import { VersionExistsError } from '../release/registry-client.ts';
import { ReleaseError } from '../release/release-error.ts';
import { uploadRelease } from '../release/release-store.ts';

const { values } = parseArgs({ options: { 'store-only': { type: 'boolean', default: false } } });
const target = releaseTargetFromEnv();
const log = (line: string) => console.log(`[publish] ${line}`);

let failed = false;
for (const remote of listRemotePackages()) {
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
      target,
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
