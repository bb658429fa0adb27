import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  createRemote,
  type CreateOutcome,
  getDeployerToken,
  registerVersion,
  registeredVersions,
  type RegisteredVersion,
} from './registry-client.ts';
import { remoteNameProblem } from '@atrium/sdk/remote-rules';
import { ReleaseError } from './release-error.ts';
import { checkTypeContract, readBuiltTypes } from './release-types.ts';
import {
  integrityOf,
  releaseDir,
  remoteEntryFile,
  uploadRelease,
  type UploadOutcome,
} from './release-store.ts';

export const repoRoot = resolve(import.meta.dirname, '../../..');

/** The `atrium` field of a remote's package.json: how the registry lists it. */
export interface RemoteMetadata {
  /** Module Federation container name, e.g. `profile`. */
  remote: string;
  title: string;
  route: string;
  navOrder: number;
  requiredRoles: string[];
  /**
   * Client id of the deployer that owns the remote: the only one that may publish and activate it
   * (`atrium-deployer` for the feature teams, `atrium-platform` for the admin console).
   */
  owner: string;
}

export interface RemotePackage {
  dir: string;
  version: string;
  atrium: RemoteMetadata;
}

/** Reads a remote workspace's package.json (version and `atrium` field). */
export function readRemotePackage(dir: string): RemotePackage {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) {
    throw new ReleaseError(`${dir} has no package.json: run the release from a remote's folder.`);
  }
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as {
    version?: string;
    atrium?: Partial<RemoteMetadata>;
  };
  const atrium = pkg.atrium;
  if (
    !atrium ||
    typeof atrium.remote !== 'string' ||
    typeof atrium.title !== 'string' ||
    typeof atrium.route !== 'string' ||
    typeof atrium.owner !== 'string'
  ) {
    throw new ReleaseError(
      `${file} needs an "atrium" field with remote, title, route and owner (see remotes/profile).`,
    );
  }
  // Refused here with the registry's own sentence, before anything is built or uploaded.
  const nameProblem = remoteNameProblem(atrium.remote);
  if (nameProblem) throw new ReleaseError(`${file}: "atrium.remote" ${nameProblem}.`);
  return {
    dir,
    version: pkg.version ?? '0.0.0',
    atrium: {
      remote: atrium.remote,
      title: atrium.title,
      route: atrium.route,
      navOrder: atrium.navOrder ?? 100,
      requiredRoles: atrium.requiredRoles ?? [],
      owner: atrium.owner,
    },
  };
}

/** Every remote workspace under `remotes/`, in navigation order. */
export function listRemotePackages(root = repoRoot): RemotePackage[] {
  const remotesDir = join(root, 'remotes');
  return readdirSync(remotesDir)
    .map((name) => join(remotesDir, name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map(readRemotePackage)
    .sort((a, b) => a.atrium.navOrder - b.atrium.navOrder);
}

/** Where releases go and whom to tell. Every field has a local default (see {@link releaseTargetFromEnv}). */
export interface ReleaseTarget {
  /** Release store folder (locally; in production a bucket synced the same way). */
  storeDir: string;
  /** Public base URL of the release store, e.g. `http://localhost:4100`. */
  storeUrl: string;
  apiUrl: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** The target from the environment, with the defaults of the local `npm start` stack. */
export function releaseTargetFromEnv(env: NodeJS.ProcessEnv = process.env): ReleaseTarget {
  return {
    storeDir: env.ATRIUM_RELEASE_STORE_DIR ?? join(repoRoot, '.data/releases'),
    storeUrl: (env.ATRIUM_RELEASE_STORE_URL ?? 'http://localhost:4100').replace(/\/+$/, ''),
    apiUrl: (env.ATRIUM_API_URL ?? 'http://localhost:3000').replace(/\/+$/, ''),
    issuer: (env.ATRIUM_ISSUER_URL ?? 'http://localhost:8080/realms/atrium').replace(/\/+$/, ''),
    clientId: env.ATRIUM_DEPLOYER_CLIENT_ID ?? 'atrium-deployer',
    // The realm's development default; production sets its own (never committed).
    clientSecret: env.ATRIUM_DEPLOYER_SECRET ?? 'atrium-deployer-dev-secret',
  };
}

/** A confidential client's credentials for the client-credentials grant. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * The platform pipeline's client (`atrium-platform`: remote-publisher and atrium-admin), which creates the
 * bundled remotes and publishes the ones it owns; from ATRIUM_PLATFORM_SECRET, with the realm's development
 * default.
 */
export function platformCredentialsFromEnv(env: NodeJS.ProcessEnv = process.env): ClientCredentials {
  return {
    clientId: env.ATRIUM_PLATFORM_CLIENT_ID ?? 'atrium-platform',
    clientSecret: env.ATRIUM_PLATFORM_SECRET ?? 'atrium-platform-dev-secret',
  };
}

/** `target` publishing as the platform's client when it owns the remote, else as the target's deployer. */
export function targetForOwner(
  target: ReleaseTarget,
  owner: string,
  platform: ClientCredentials,
): ReleaseTarget {
  return owner === platform.clientId ? { ...target, ...platform } : target;
}

/**
 * Creates each remote in the registry from its package.json `atrium` field, as the platform's client (an
 * administrator's act), and says which it created. Remotes that exist are left as they are: an
 * administrator may have changed their settings since.
 */
export async function createRemotes(
  remotes: readonly RemotePackage[],
  target: ReleaseTarget,
  platform: ClientCredentials,
  log: (line: string) => void,
): Promise<Map<string, CreateOutcome>> {
  const token = await getDeployerToken({ issuer: target.issuer, ...platform });
  const outcomes = new Map<string, CreateOutcome>();
  for (const { atrium } of remotes) {
    const outcome = await createRemote({
      apiUrl: target.apiUrl,
      token,
      settings: {
        name: atrium.remote,
        title: atrium.title,
        path: atrium.route,
        navOrder: atrium.navOrder,
        requiredRoles: atrium.requiredRoles,
        owner: atrium.owner,
      },
    });
    log(
      outcome === 'created'
        ? `created remote ${atrium.remote} (owner ${atrium.owner}) as ${platform.clientId}`
        : `remote ${atrium.remote} exists; its settings are left as they are`,
    );
    outcomes.set(atrium.remote, outcome);
  }
  return outcomes;
}

export interface PublishOptions {
  /** The remote's package (metadata and default version). */
  remote: RemotePackage;
  target: ReleaseTarget;
  /** Publish as this version instead of package.json's. */
  version?: string;
  /** Build before uploading (default true). The build is told the version via ATRIUM_RELEASE_VERSION. */
  build?: boolean;
  /** Publish this folder instead of the remote's dist/ (implies no build). */
  sourceDir?: string;
  /** Make the version the one the shell loads. */
  activate?: boolean;
  /**
   * The publisher says the release breaks the types of the active one (consumers were told): published even so,
   * and marked as breaking in the registry.
   */
  breaking?: boolean;
  log?: (line: string) => void;
}

export interface PublishResult {
  remote: string;
  version: string;
  manifestUrl: string;
  upload: UploadOutcome;
  registered: RegisteredVersion;
}

const VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/**
 * Builds a remote, uploads it to the release store as an immutable versioned release, and registers it with
 * the API as the target's deployer client (client credentials), which must own the remote. The remote's
 * settings (title, route, roles, owner) are an administrator's, never sent with a version. Before anything is
 * uploaded, the types the build exposes are compared with the active release's ({@link checkTypeContract}).
 * Each step is logged; each failure is a {@link ReleaseError} that says what to do.
 */
export async function publishRelease(options: PublishOptions): Promise<PublishResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const { atrium } = options.remote;
  const version = options.version ?? options.remote.version;
  if (!VERSION.test(version)) {
    throw new ReleaseError(`"${version}" is not a version like 1.2.3 (or 1.2.3-rc.1).`);
  }
  // Credentials first: a wrong secret or an unreachable Keycloak fails before anything is built or uploaded.
  const token = await getDeployerToken({
    issuer: options.target.issuer,
    clientId: options.target.clientId,
    clientSecret: options.target.clientSecret,
  });
  const building = options.sourceDir === undefined && options.build !== false;
  const sourceDir = building
    ? mkdtempSync(join(tmpdir(), `atrium-release-${atrium.remote}-`))
    : (options.sourceDir ?? join(options.remote.dir, 'dist'));
  let upload: UploadOutcome;
  let built: ReleaseHashes;
  let manifest: string;
  try {
    if (building) {
      log(`building ${atrium.remote} ${version}…`);
      await buildRemote(options.remote.dir, version, sourceDir);
    }
    // The hashes the registry vouches for are taken from the build, before anything is in the store: whoever
    // can write to the store cannot get their files hashed and approved (a build the shell could not verify
    // is refused here too).
    built = releaseHashes(sourceDir);
    log(
      await checkTypeContract({
        remote: atrium.remote,
        version,
        next: readBuiltTypes(sourceDir),
        registered: await registeredVersions({ apiUrl: options.target.apiUrl, token, remote: atrium.remote }),
        source: options.target,
        breaking: options.breaking ?? false,
        resolveFrom: repoRoot,
      }),
    );
    // Sent as it is: the API checks the packages it shares against the shell and the live releases, once it has
    // seen that these are the bytes manifestIntegrity vouches for.
    manifest = readFileSync(join(sourceDir, 'mf-manifest.json'), 'utf8');
    upload = uploadRelease({ sourceDir, storeDir: options.target.storeDir, remote: atrium.remote, version });
  } finally {
    if (building) rmSync(sourceDir, { recursive: true, force: true });
  }
  const target = releaseDir(options.target.storeDir, atrium.remote, version);
  log(
    upload === 'uploaded' ? `uploaded to ${target}` : `already in the release store (${target}), same files`,
  );
  // What the browser will load must be what was built; a store changed meanwhile is reported, never registered.
  const stored = releaseHashes(target);
  if (stored.integrity !== built.integrity || stored.manifestIntegrity !== built.manifestIntegrity) {
    throw new ReleaseError(
      `The files in the release store (${target}) differ from the build just uploaded: something changed them. ` +
        'Nothing was registered. Find out what wrote to the store, then publish a new version.',
    );
  }
  const { integrity, manifestIntegrity } = built;

  const manifestUrl = `${options.target.storeUrl}/${atrium.remote}/${version}/mf-manifest.json`;
  const registered = await registerVersion({
    apiUrl: options.target.apiUrl,
    token,
    remote: atrium.remote,
    registration: {
      version,
      manifestUrl,
      integrity,
      manifestIntegrity,
      manifest,
      activate: options.activate ?? false,
      ...(options.breaking ? { breaking: true } : {}),
    },
  });
  log(
    `registered ${atrium.remote} ${version} (${manifestUrl}) with ${options.target.apiUrl}; ` +
      (registered.remote.activeVersion === version
        ? 'it is now live'
        : `active version stays ${registered.remote.activeVersion ?? 'none'} (pass --activate to make it live)`),
  );
  return { remote: atrium.remote, version, manifestUrl, upload, registered };
}

/** The SRI hashes the shell enforces for a release: its `mf-manifest.json` byte for byte, and the entry it names. */
interface ReleaseHashes {
  integrity: string;
  manifestIntegrity: string;
}

function releaseHashes(dir: string): ReleaseHashes {
  return {
    integrity: integrityOf(remoteEntryFile(dir)),
    manifestIntegrity: integrityOf(join(dir, 'mf-manifest.json')),
  };
}

/** Runs the remote's production build into `outDir`, telling it which version it is. */
export async function buildRemote(dir: string, version: string, outDir: string): Promise<void> {
  const child = spawn('npm', ['run', 'build'], {
    cwd: dir,
    env: { ...process.env, ATRIUM_RELEASE_VERSION: version, ATRIUM_BUILD_DIR: outDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0)
    throw new ReleaseError(`The build of ${dir} failed (exit code ${code}):\n${output.slice(-3000)}`);
}
