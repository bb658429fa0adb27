import type { components } from '../../shell/sdk/src/generated/api.ts';
import { ReleaseError } from './release-error.ts';

export interface DeployerCredentials {
  /** Realm issuer, e.g. `http://localhost:8080/realms/atrium`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/**
 * Gets an access token for the deployer through the client-credentials grant, finding the token endpoint
 * through OpenID discovery.
 */
export async function getDeployerToken(credentials: DeployerCredentials): Promise<string> {
  const discoveryUrl = `${credentials.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const discovery = await fetchOrExplain(
    discoveryUrl,
    undefined,
    () =>
      `Could not reach Keycloak at ${credentials.issuer}. Is it running (\`npm run keycloak\`)? ` +
      'Set ATRIUM_ISSUER_URL if it lives elsewhere.',
  );
  if (!discovery.ok) {
    throw new ReleaseError(
      `Keycloak's discovery document ${discoveryUrl} answered HTTP ${discovery.status}: is the issuer URL right?`,
    );
  }
  const { token_endpoint: tokenEndpoint } = (await discovery.json()) as { token_endpoint?: string };
  if (typeof tokenEndpoint !== 'string') {
    throw new ReleaseError(`${discoveryUrl} names no token_endpoint.`);
  }
  const response = await fetchOrExplain(
    tokenEndpoint,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
      }),
    },
    () => `Could not reach Keycloak's token endpoint ${tokenEndpoint}.`,
  );
  const body = (await response.json().catch(() => ({}))) as {
    access_token?: string;
    error?: string;
    error_description?: string;
  };
  if (!response.ok || typeof body.access_token !== 'string') {
    const reason = body.error_description ?? body.error ?? `HTTP ${response.status}`;
    throw new ReleaseError(
      `Keycloak refused the credentials of client ${credentials.clientId} (${reason}). Check its secret ` +
        '(ATRIUM_DEPLOYER_SECRET for atrium-deployer, ATRIUM_PLATFORM_SECRET for atrium-platform); a realm ' +
        'imported before the client existed lacks it (locally: stop Atrium and delete .data/keycloak).',
    );
  }
  return body.access_token;
}

// The registry's wire types, generated from the API's OpenAPI document (`npm run contract`).
type Schemas = components['schemas'];

/** Body of `POST /api/remotes/{name}/versions`. */
export type VersionRegistration = Schemas['PublishVersion'];

/** What the registry answered to a publish. */
export type RegisteredVersion = Schemas['PublishResult'];

/** A refusal as the API sends it; any part may be missing when something else (a proxy) answered. */
export type Problem = Partial<Schemas['Problem']>;

/**
 * Registers a published release with the API's registry (`--activate` makes it the version the shell loads).
 *
 * @throws ReleaseError with a specific message for every refusal: version exists (409), origin not allowed,
 *   invalid input (400), missing role (403), API unreachable.
 */
export async function registerVersion(options: {
  apiUrl: string;
  token: string;
  remote: string;
  registration: VersionRegistration;
}): Promise<RegisteredVersion> {
  const apiUrl = options.apiUrl.replace(/\/+$/, '');
  const path = `/api/remotes/${encodeURIComponent(options.remote)}/versions`;
  const url = `${apiUrl}${path}`;
  const response = await callApi(apiUrl, path, options.token, options.registration);
  if (response.ok) return (await response.json()) as RegisteredVersion;

  const problem = (await response.json().catch(() => ({}))) as Problem;
  const said = problem.detail ?? problem.title ?? `HTTP ${response.status}`;
  const { version, manifestUrl } = options.registration;
  if (problem.code === 'remote_not_found') {
    throw new RemoteMissingError(
      `The registry has no remote "${options.remote}": an administrator must create it first (the admin ` +
        'console, or POST /api/remotes) with its title, route, roles and owner; then publish again.',
    );
  }
  if (problem.code === 'not_remote_owner') {
    throw new ReleaseError(
      `${said} Publish with the owner's credentials (ATRIUM_DEPLOYER_CLIENT_ID / ATRIUM_DEPLOYER_SECRET), ` +
        'or ask an administrator to change the owner.',
    );
  }
  if (response.status === 409) {
    throw new VersionExistsError(
      `${options.remote} ${version} is already registered (${problem.code ?? 'version_exists'}). Versions are ` +
        'immutable: publish a new version (bump package.json or pass --version).',
    );
  }
  const originRefused =
    /origin/i.test(problem.code ?? '') ||
    (problem.errors ?? []).some((error) => error.field === 'manifestUrl' && /origin/i.test(error.message));
  if (originRefused) {
    throw new ReleaseError(
      `The API refuses remotes served from ${new URL(manifestUrl).origin}: add that origin to the API's ` +
        `ALLOWED_REMOTE_ORIGINS (${said}).`,
    );
  }
  if (response.status === 400) {
    const fields = (problem.errors ?? []).map((error) => `${error.field} ${error.message}`);
    throw new ReleaseError(
      `The API rejected the registration: ${fields.length > 0 ? fields.join('; ') : said}.`,
    );
  }
  if (response.status === 401 || response.status === 403) {
    throw new ReleaseError(
      `The API refused the deployer's token (HTTP ${response.status}, ${problem.code ?? said}): the ` +
        'atrium-deployer client needs the remote-publisher role, and the API must trust this Keycloak.',
    );
  }
  if (response.status === 404) {
    throw new ReleaseError(
      `The API at ${apiUrl} has no registry endpoint (${url} answered 404): is it up to date?`,
    );
  }
  throw new ReleaseError(`The API answered HTTP ${response.status} to ${url}: ${said}.`);
}

/**
 * Makes an existing version of a remote the one the shell loads (`PUT /api/remotes/{name}/active`): a rollback
 * when it is older. The deployer must own the remote.
 */
export async function activateVersion(options: {
  apiUrl: string;
  token: string;
  remote: string;
  version: string;
}): Promise<{ name: string; activeVersion: string | null }> {
  const apiUrl = options.apiUrl.replace(/\/+$/, '');
  const path = `/api/remotes/${encodeURIComponent(options.remote)}/active`;
  const response = await callApi(apiUrl, path, options.token, { version: options.version }, 'PUT');
  if (response.ok) return (await response.json()) as { name: string; activeVersion: string | null };
  const problem = (await response.json().catch(() => ({}))) as Problem;
  const said = problem.detail ?? problem.title ?? `HTTP ${response.status}`;
  if (problem.code === 'version_not_found') {
    throw new ReleaseError(`${said} Name a version that was published (the admin console lists them).`);
  }
  if (problem.code === 'not_remote_owner' || problem.code === 'remote_not_found')
    throw new ReleaseError(said);
  if (response.status === 400) {
    const fields = (problem.errors ?? []).map((error) => `${error.field} ${error.message}`);
    throw new ReleaseError(`The API refused the version: ${fields.length > 0 ? fields.join('; ') : said}.`);
  }
  throw new ReleaseError(`The API answered HTTP ${response.status} to PUT ${apiUrl}${path}: ${said}.`);
}

/**
 * Sends a request to the API with a deployer's token (JSON `body` when given, POST by default); an API that
 * does not answer is explained, not thrown raw.
 */
export function callApi(
  apiUrl: string,
  path: string,
  token: string,
  body: unknown,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' = 'POST',
): Promise<Response> {
  const base = apiUrl.replace(/\/+$/, '');
  return fetchOrExplain(
    `${base}${path}`,
    {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        Accept: 'application/json, application/problem+json',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    },
    () =>
      `Could not reach the Atrium API at ${base}. Is it running? Set ATRIUM_API_URL if it lives elsewhere.`,
  );
}

/** Body of `POST /api/remotes`: a remote's settings, which only an administrator sets. */
export type RemoteSettings = Schemas['CreateRemote'];

/** What {@link createRemote} found: the remote was created now, or it existed already (left as it is). */
export type CreateOutcome = 'created' | 'exists';

/**
 * Creates a remote in the registry with the token of an administrator (the platform pipeline's client).
 * A remote that exists is left as it is: an administrator may have changed its settings since.
 *
 * @throws ReleaseError when the route is taken by another remote, the token is refused or the API is down.
 */
export async function createRemote(options: {
  apiUrl: string;
  token: string;
  settings: RemoteSettings;
}): Promise<CreateOutcome> {
  const apiUrl = options.apiUrl.replace(/\/+$/, '');
  const response = await callApi(apiUrl, '/api/remotes', options.token, options.settings);
  if (response.ok) return 'created';
  const problem = (await response.json().catch(() => ({}))) as Problem;
  if (problem.code === 'remote_exists') return 'exists';
  const said = problem.detail ?? problem.title ?? `HTTP ${response.status}`;
  if (problem.code === 'path_in_use') {
    throw new ReleaseError(
      `Another remote already uses the route ${options.settings.path}: choose another "route" in package.json (${said}).`,
    );
  }
  if (response.status === 401 || response.status === 403) {
    throw new ReleaseError(
      `The API refused to create remote ${options.settings.name} (HTTP ${response.status}, ${problem.code ?? said}): ` +
        'creating a remote needs the atrium-admin role (the atrium-platform client has it).',
    );
  }
  if (response.status === 400) {
    const fields = (problem.errors ?? []).map((error) => `${error.field} ${error.message}`);
    throw new ReleaseError(
      `The API refused remote ${options.settings.name}'s settings: ${fields.length > 0 ? fields.join('; ') : said}.`,
    );
  }
  throw new ReleaseError(`The API answered HTTP ${response.status} to POST ${apiUrl}/api/remotes: ${said}.`);
}

/** The registry has no such remote: an administrator must create it before anything is published. */
export class RemoteMissingError extends ReleaseError {
  constructor(message: string) {
    super(message);
    this.name = 'RemoteMissingError';
  }
}

/** The registry already has this version of the remote. */
export class VersionExistsError extends ReleaseError {
  constructor(message: string) {
    super(message);
    this.name = 'VersionExistsError';
  }
}

async function fetchOrExplain(
  url: string,
  init: RequestInit | undefined,
  explain: () => string,
): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    const cause =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new ReleaseError(`${explain()} (${cause})`, { cause: error });
  }
}
