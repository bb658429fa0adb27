// `npm run release --workspace remotes/<name> [-- --activate] [-- --version 1.2.3]`: builds the remote, uploads
// it to the release store as an immutable release and registers it with the API as the deployer that owns it.
// The remote must exist: creating it, and its title, route, roles and owner, are an administrator's.
import { parseArgs } from 'node:util';
import { publishRelease, readRemotePackage, releaseTargetFromEnv } from './publish-release.ts';
import { exitOnCliError } from './release-error.ts';

const usage = `Usage: npm run release --workspace remotes/<name> -- [options]

  --activate         make the new version the one the shell loads
  --version <x.y.z>  publish as this version instead of package.json's
  --no-build         upload the existing dist/ as it is
  --dir <path>       upload this folder instead of dist/ (implies --no-build)

Environment (defaults are the local \`npm start\` stack):
  ATRIUM_API_URL            http://localhost:3000
  ATRIUM_ISSUER_URL         http://localhost:8080/realms/atrium
  ATRIUM_DEPLOYER_CLIENT_ID atrium-deployer (must be the remote's owner)
  ATRIUM_DEPLOYER_SECRET    the realm's development secret
  ATRIUM_RELEASE_STORE_DIR  .data/releases
  ATRIUM_RELEASE_STORE_URL  http://localhost:4100`;

try {
  const { values } = parseArgs({
    options: {
      activate: { type: 'boolean', default: false },
      version: { type: 'string' },
      'no-build': { type: 'boolean', default: false },
      dir: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const remote = readRemotePackage(process.cwd());
  const result = await publishRelease({
    remote,
    target: releaseTargetFromEnv(),
    activate: values.activate,
    build: !values['no-build'],
    ...(values.version !== undefined ? { version: values.version } : {}),
    ...(values.dir !== undefined ? { sourceDir: values.dir } : {}),
    log: (line) => console.log(`[release] ${line}`),
  });
  console.log(
    `[release] done: ${result.remote} ${result.version}${values.activate ? ' is live' : ' published'}`,
  );
} catch (error) {
  exitOnCliError('release', error, usage);
}
