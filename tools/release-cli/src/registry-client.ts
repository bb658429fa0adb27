import { describeProblemToTool } from '@atrium/sdk/problem-sentences';
import { ApiNetworkError, ApiProblemError, requestApi, type ApiSchemas } from '@atrium/sdk/transport';
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
type Schemas = ApiSchemas['schemas'];

/** What to do about `not_remote_owner` when publishing. */
const OWNER_CREDENTIALS =
  " Publish with the owner's credentials (ATRIUM_DEPLOYER_CLIENT_ID / ATRIUM_DEPLOYER_SECRET), or ask an " +
  'administrator to change the owner.';

/** Body of `POST /api/remotes/{name}/versions`. */
export type VersionRegistration = Schemas['PublishVersion'];

/** What the registry answered to a publish. */
export type RegisteredVersion = Schemas['PublishResult'];

/**
 * Registers a published release with the API's registry (`--activate` makes it the version the shell loads).
 *
 * @throws ReleaseError saying what to do for every refusal (the sdk's sentence of its code, and where this CLI's
 *   settings are), or that the API is unreachable.
 */
export async function registerVersion(options: {
  apiUrl: string;
  token: string;
  remote: string;
  registration: VersionRegistration;
}): Promise<RegisteredVersion> {
  const path = `/api/remotes/${encodeURIComponent(options.remote)}/versions`;
  try {
    return await callApi<RegisteredVersion>(options.apiUrl, path, options.token, options.registration);
  } catch (error) {
    if (!(error instanceof ApiProblemError)) throw error;
    const said = describeProblemToTool(error);
    switch (error.code) {
      case 'remote_not_found':
        throw new RemoteMissingError(
          `The registry has no remote "${options.remote}": an administrator must create it first (the admin ` +
            'console, or POST /api/remotes) with its title, route, roles and owner; then publish again.',
        );
      case 'not_remote_owner':
        throw new ReleaseError(`${said}${OWNER_CREDENTIALS}`);
      case 'version_exists':
        throw new VersionExistsError(`${said} Bump the version in package.json, or pass --version.`);
      case 'not_found':
      case 'http_404':
        throw new ReleaseError(
          `The API at ${options.apiUrl} has no registry endpoint (POST ${path} answered 404): is it up to date?`,
        );
    }
    throw new ReleaseError(
      describeProblemToTool(error, 'The API refused the registration') +
        (error.code === 'insufficient_scope'
          ? ' The atrium-deployer client needs the remote-publisher role.'
          : ''),
      { cause: error },
    );
  }
}

/** A remote's versions as the registry has them: the one the shell loads now, and all that are registered. */
export interface RegisteredVersions {
  active: string | null;
  versions: string[];
}

/**
 * The versions of a remote (`GET /api/remotes/{name}/versions`, which its owning deployer may read); none when
 * the registry does not know the remote (publishing says what to do).
 *
 * @throws ReleaseError for any other refusal, saying what to do.
 */
export async function registeredVersions(options: {
  apiUrl: string;
  token: string;
  remote: string;
}): Promise<RegisteredVersions> {
  const path = `/api/remotes/${encodeURIComponent(options.remote)}/versions`;
  try {
    const history = await callApi<Schemas['VersionHistory']>(
      options.apiUrl,
      path,
      options.token,
      undefined,
      'GET',
    );
    return { active: history.remote.activeVersion, versions: history.versions.map((v) => v.version) };
  } catch (error) {
    if (!(error instanceof ApiProblemError)) throw error;
    if (error.code === 'remote_not_found') return { active: null, versions: [] };
    throw new ReleaseError(
      `${describeProblemToTool(error, "The API refused to list the remote's versions")}${
        error.code === 'not_remote_owner' ? OWNER_CREDENTIALS : ''
      }`,
      { cause: error },
    );
  }
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
  const path = `/api/remotes/${encodeURIComponent(options.remote)}/active`;
  try {
    return await callApi<{ name: string; activeVersion: string | null }>(
      options.apiUrl,
      path,
      options.token,
      { version: options.version },
      'PUT',
    );
  } catch (error) {
    if (!(error instanceof ApiProblemError)) throw error;
    throw new ReleaseError(describeProblemToTool(error), { cause: error });
  }
}

/**
 * Sends a request to the API with a deployer's token through the sdk's problem+json transport (JSON `body` when
 * given, POST by default): resolves with the answer's JSON, rejects with the sdk's `ApiProblemError` for a
 * refusal; an API that does not answer is explained (a ReleaseError).
 */
export async function callApi<T>(
  apiUrl: string,
  path: string,
  token: string,
  body: unknown,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' = 'POST',
): Promise<T> {
  const base = apiUrl.replace(/\/+$/, '');
  try {
    return await requestApi<T>(`${base}${path}`, { method, authorization: `Bearer ${token}`, body });
  } catch (error) {
    if (!(error instanceof ApiNetworkError)) throw error;
    throw new ReleaseError(
      `Could not reach the Atrium API at ${base}. Is it running? Set ATRIUM_API_URL if it lives elsewhere. ` +
        `(${causeOf(error)})`,
      { cause: error },
    );
  }
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
  try {
    await callApi(options.apiUrl, '/api/remotes', options.token, options.settings);
    return 'created';
  } catch (error) {
    if (!(error instanceof ApiProblemError)) throw error;
    if (error.code === 'remote_exists') return 'exists';
    const said = describeProblemToTool(error);
    if (error.code === 'path_in_use') {
      throw new ReleaseError(`${said} Choose another "route" in package.json.`, { cause: error });
    }
    const admin =
      error.code === 'insufficient_scope'
        ? ' Creating a remote needs the atrium-admin role (the atrium-platform client has it).'
        : '';
    throw new ReleaseError(
      `${describeProblemToTool(error, `The API refused to create remote ${options.settings.name}`)}${admin}`,
      { cause: error },
    );
  }
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

/** Why a request got no answer: the network's own words (`ECONNREFUSED …`) where it gave them. */
function causeOf(error: Error): string {
  const failure = error.cause;
  if (!(failure instanceof Error)) return error.message;
  return (failure.cause as Error | undefined)?.message ?? failure.message;
}

/** A request to Keycloak (OpenID discovery, the token endpoint), which speaks OAuth rather than problem+json. */
async function fetchOrExplain(
  url: string,
  init: RequestInit | undefined,
  explain: () => string,
): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    throw new ReleaseError(`${explain()} (${error instanceof Error ? causeOf(error) : String(error)})`, {
      cause: error,
    });
  }
}
