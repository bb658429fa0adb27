// `npm run rollback --workspace remotes/<name> -- --to <version>`: makes an earlier published version of the
// remote the one the shell loads again, as the deployer that owns it (`PUT /api/remotes/{name}/active`).
// Nothing is built or uploaded: releases stay in the store, so the next page load runs the older one.
import { parseArgs } from 'node:util';
import { readRemotePackage, releaseTargetFromEnv } from './publish-release.ts';
import { activateVersion, getDeployerToken } from './registry-client.ts';
import { exitOnCliError } from './release-error.ts';

const usage = `Usage: npm run rollback --workspace remotes/<name> -- --to <x.y.z>

  --to <x.y.z>  the published version to make active again (the admin console lists them)

Environment: as for \`npm run release\` (ATRIUM_API_URL, ATRIUM_ISSUER_URL, ATRIUM_DEPLOYER_CLIENT_ID,
ATRIUM_DEPLOYER_SECRET; defaults are the local \`npm start\` stack).`;

try {
  const { values } = parseArgs({
    options: { to: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
    strict: true,
  });
  if (values.help || values.to === undefined) {
    console.log(usage);
    process.exit(values.help ? 0 : 1);
  }
  const { atrium } = readRemotePackage(process.cwd());
  const target = releaseTargetFromEnv();
  const token = await getDeployerToken(target);
  const remote = await activateVersion({
    apiUrl: target.apiUrl,
    token,
    remote: atrium.remote,
    version: values.to,
  });
  console.log(`[rollback] ${remote.name} ${remote.activeVersion ?? 'none'} is live again (next page load)`);
} catch (error) {
  exitOnCliError('rollback', error, usage);
}
