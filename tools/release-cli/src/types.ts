// `npm run types -- pull <remote>[@<version>]`: writes the type declarations a release of a remote exposes (and
// those of the sdk it was built against) to types/<remote>/, where a consumer's typecheck finds them.
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { releaseTargetFromEnv } from './publish-release.ts';
import { pullTypes } from './pull-types.ts';
import { exitOnCliError, ReleaseError } from './release-error.ts';

const usage = `Usage: npm run types -- pull <remote>[@<version>] [--out <folder>]

  <remote>@<version>  the release whose types to write, e.g. profile@1.0.0
  <remote>            the remote's active version (asks the registry as the deployer below)
  --out <folder>      where to write <remote>/ (default: types/ in the folder npm was run from)

A consumer's tsconfig.json finds them with
  "compilerOptions": { "paths": { "<remote>/*": ["./types/<remote>/*"] } }
and imports them as the shell loads them: import type { Feature } from '<remote>/Feature'.

Environment: as for \`npm run release\` (ATRIUM_RELEASE_STORE_DIR, ATRIUM_RELEASE_STORE_URL, ATRIUM_API_URL,
ATRIUM_ISSUER_URL, ATRIUM_DEPLOYER_CLIENT_ID, ATRIUM_DEPLOYER_SECRET; defaults are the local \`npm start\` stack).`;

try {
  const { values, positionals } = parseArgs({
    options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const [command, release, ...rest] = positionals;
  if (command !== 'pull' || release === undefined || rest.length > 0) {
    throw new ReleaseError(
      `Say which release to pull: npm run types -- pull <remote>[@<version>]\n\n${usage}`,
    );
  }
  // npm runs the script from the repository's root; INIT_CWD is where it was started.
  const from = process.env.INIT_CWD ?? process.cwd();
  const { types, folder } = await pullTypes({
    release,
    target: releaseTargetFromEnv(),
    outDir: resolve(from, values.out ?? 'types'),
  });
  console.log(
    `[types] wrote the types of ${types.remote} ${types.version} (built against @atrium/sdk ` +
      `${types.sdkVersion}) to ${folder}: import type { Feature } from '${types.remote}/Feature', with ` +
      `tsconfig "paths": { "${types.remote}/*": ["./${relative(from, folder)}/*"] }`,
  );
} catch (error) {
  exitOnCliError('types', error, usage);
}
