/**
 * Where the shell finds the identity provider, the API and the remotes list. Fetched at boot from
 * `/atrium.config.json` so one build runs in every environment; nothing here is compiled in.
 */
export interface RuntimeConfig {
  readonly oidc: {
    readonly authority: string;
    readonly clientId: string;
    /** Path of the sign-in callback route; `redirect_uri` is this on the shell's origin. */
    readonly redirectPath: string;
    /** Where Keycloak sends the browser after sign-out. */
    readonly postLogoutPath: string;
  };
  readonly apiBaseUrl: string;
  /** Absolute URL of the registry's list of remotes, on the API's origin; defaults to `{apiBaseUrl}/api/remotes`. */
  readonly remotesUrl: string;
  /** How long one remote may take to load before its slot shows a fallback; defaults to 10 s. */
  readonly remoteTimeoutMs: number;
  /**
   * Dev overrides, `{ "allowedOrigins": ["http://localhost:5001"] }`; absent (the default, and production's unless
   * configured) they are off. Checked by the lazily loaded dev-override code that alone uses it
   * (dev-override/dev-override.ts), so the shell's first bundle does not carry its rules.
   */
  readonly devOverrides?: unknown;
  /**
   * OpenTelemetry tracing of the shell's API calls, `{ "otlpTracesUrl": "http://localhost:4318/v1/traces" }`:
   * each call is a client span sent to that OTLP/HTTP receiver, and the API continues its trace (`traceparent`).
   * Absent or null (the default): off, and no tracing code is even downloaded. Checked by the lazily loaded
   * tracing code that alone uses it (tracing/api-tracing.ts), like `devOverrides`.
   */
  readonly tracing?: unknown;
}

export const DEFAULT_REMOTE_TIMEOUT_MS = 10_000;

export const CONFIG_URL = '/atrium.config.json';

/** Typed failure to load or validate the run-time config, rendered by the shell as an error state. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    message: string,
    readonly problems: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export async function loadRuntimeConfig(fetchImpl: typeof fetch = fetch): Promise<RuntimeConfig> {
  let response: Response;
  try {
    response = await fetchImpl(CONFIG_URL, { cache: 'no-store' });
  } catch (error) {
    throw new ConfigError(`Could not download ${CONFIG_URL}.`, [], { cause: error });
  }
  if (!response.ok) throw new ConfigError(`${CONFIG_URL} answered HTTP ${response.status}.`);
  let raw: unknown;
  try {
    raw = await response.json();
  } catch (error) {
    throw new ConfigError(`${CONFIG_URL} is not valid JSON.`, [], { cause: error });
  }
  return parseRuntimeConfig(raw);
}

/** Validates the whole document and names every bad field at once, so one fix-and-reload is enough. */
export function parseRuntimeConfig(raw: unknown): RuntimeConfig {
  const problems: string[] = [];
  const root = isRecord(raw) ? raw : {};
  if (!isRecord(raw)) problems.push('the document must be a JSON object');
  const oidc = isRecord(root.oidc) ? root.oidc : {};
  if (!isRecord(root.oidc)) problems.push('oidc must be an object');

  const authority = readUrl(oidc.authority, 'oidc.authority', problems);
  const clientId = readString(oidc.clientId, 'oidc.clientId', problems);
  const redirectPath = readPath(oidc.redirectPath ?? '/auth/callback', 'oidc.redirectPath', problems);
  const postLogoutPath = readPath(oidc.postLogoutPath ?? '/', 'oidc.postLogoutPath', problems);
  const apiBaseUrl = readUrl(root.apiBaseUrl, 'apiBaseUrl', problems);
  const remotesUrl =
    root.remotesUrl === undefined
      ? `${apiBaseUrl}/api/remotes`
      : readUrl(root.remotesUrl, 'remotesUrl', problems);
  // The list is fetched with the API client, which refuses (rather than send the token to) any other origin.
  if (URL.canParse(remotesUrl) && URL.canParse(apiBaseUrl)) {
    if (new URL(remotesUrl).origin !== new URL(apiBaseUrl).origin) {
      problems.push('remotesUrl must be on the origin of apiBaseUrl');
    }
  }
  const remoteTimeoutMs = root.remoteTimeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS;
  if (typeof remoteTimeoutMs !== 'number' || !Number.isInteger(remoteTimeoutMs) || remoteTimeoutMs <= 0) {
    problems.push('remoteTimeoutMs must be a positive whole number of milliseconds');
  }

  if (problems.length > 0) throw new ConfigError(`${CONFIG_URL} is invalid.`, problems);
  return {
    oidc: { authority, clientId, redirectPath, postLogoutPath },
    apiBaseUrl,
    remotesUrl,
    remoteTimeoutMs: remoteTimeoutMs as number,
    devOverrides: root.devOverrides,
    tracing: root.tracing,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readString(value: unknown, name: string, problems: string[]): string {
  if (typeof value === 'string' && value.trim() !== '') return value;
  problems.push(`${name} must be a non-empty string`);
  return '';
}

function readUrl(value: unknown, name: string, problems: string[]): string {
  const text = readString(value, name, problems);
  if (text === '') return text;
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) {
    problems.push(`${name} must be an absolute http(s) URL`);
  }
  return text.replace(/\/+$/, '');
}

function readPath(value: unknown, name: string, problems: string[]): string {
  if (typeof value === 'string' && value.startsWith('/') && !value.startsWith('//')) return value;
  problems.push(`${name} must be a path starting with a single /`);
  return '/';
}
