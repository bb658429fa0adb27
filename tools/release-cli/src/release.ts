// `npm run release --workspace remotes/<name> [-- --activate] [-- --version 1.2.3]`: builds the remote, uploads
// it to the release store as an immutable release and registers it with the API as the deployer that owns it.
// The remote must exist: creating it, and its title, route, roles and owner, are an administrator's. A release
// whose exposed types break the active release's is refused unless it says so (--breaking).
// `npm run release -- prune [--dry-run]`: removes from the release store what no open page can need (prune.ts).
import { parseArgs } from 'node:util';
import {
  platformCredentialsFromEnv,
  publishRelease,
  readRemotePackage,
  releaseTargetFromEnv,
} from './publish-release.ts';
import { pruneReleases, retentionHoursFromEnv } from './prune.ts';
import { exitOnCliError, ReleaseError } from './release-error.ts';

const usage = `Usage: npm run release --workspace remotes/<name> -- [options]
       npm run release -- prune [--dry-run]

  --activate         make the new version the one the shell loads
  --breaking         publish even though its exposed types break the active release's
                     (consumers were told); the registry marks the version as breaking
  --version <x.y.z>  publish as this version instead of package.json's
  --no-build         upload the existing dist/ as it is
  --dir <path>       upload this folder instead of dist/ (implies --no-build)

  prune              remove the releases no open page can need: never the active one, a running canary's,
                     or one published or withdrawn less than ATRIUM_RELEASE_RETENTION_HOURS ago (default 168)
  --dry-run          say what prune would remove, and remove nothing

Environment (defaults are the local \`npm start\` stack):
  ATRIUM_API_URL            http://localhost:3000
  ATRIUM_ISSUER_URL         http://localhost:8080/realms/atrium
  ATRIUM_DEPLOYER_CLIENT_ID atrium-deployer (must be the remote's owner)
  ATRIUM_DEPLOYER_SECRET    the realm's development secret
  ATRIUM_PLATFORM_CLIENT_ID atrium-platform (prune reads every remote as it)
  ATRIUM_PLATFORM_SECRET    the realm's development secret
  ATRIUM_RELEASE_STORE_DIR  .data/releases
  ATRIUM_RELEASE_STORE_URL  http://localhost:4100
  ATRIUM_RELEASE_RETENTION_HOURS 168`;

try {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'dry-run': { type: 'boolean', default: false },
      activate: { type: 'boolean', default: false },
      breaking: { type: 'boolean', default: false },
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
  if (positionals[0] === 'prune' && positionals.length === 1) {
    await prune(values['dry-run']);
    process.exit(0);
  }
  if (positionals.length > 0) {
    throw new ReleaseError(`Unknown command "${positionals.join(' ')}": see npm run release -- --help.`);
  }
  const remote = readRemotePackage(process.cwd());
  const result = await publishRelease({
    remote,
    target: releaseTargetFromEnv(),
    activate: values.activate,
    breaking: values.breaking,
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

async function prune(dryRun: boolean): Promise<void> {
  const target = releaseTargetFromEnv();
  const retentionHours = retentionHoursFromEnv();
  const decisions = await pruneReleases({
    ...target,
    ...platformCredentialsFromEnv(),
    retentionHours,
    dryRun,
  });
  for (const { release, remove, why } of decisions) {
    const verb = remove ? (dryRun ? 'would remove' : 'removed') : 'kept';
    console.log(`[release] ${verb} ${release.remote} ${release.version}: ${why}`);
  }
  const removed = decisions.filter((decision) => decision.remove).length;
  console.log(
    `[release] prune ${dryRun ? 'would remove' : 'removed'} ${removed} of ${decisions.length} releases ` +
      `(retention ${retentionHours} h)`,
  );
}
