// How an answer of the Atrium API is read: its JSON, or its problem+json refusal as an ApiProblemError. The
// browser's client (api-client.ts) reads every answer with these; `@atrium/sdk/transport` gives them, with
// `requestApi`, to tools that run in Node with a client's own token (the release CLI). Screens never import that
// entry point: they call the API with the shell's client (`useApi()`), whose error classes are the shared ones.
import {
  ApiNetworkError,
  ApiProblemError,
  type ProblemDocument,
  type ProblemFieldError,
} from './api-errors.ts';

export { ApiNetworkError, ApiProblemError } from './api-errors.ts';
export type { ProblemDocument, ProblemFieldError } from './api-errors.ts';
// The API's wire types (`npm run contract`), as `@atrium/sdk` gives them to the shell and remotes.
export type { components as ApiSchemas } from './generated/api.ts';

/** The body of a successful answer: its JSON, or `undefined` for 204 and an empty body. */
export async function readJson<T>(response: Response): Promise<T> {
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/**
 * The problem document of an error answer. When the answer was not the API's problem+json (a proxy's page, say),
 * its fields come from the HTTP status and its code is `http_<status>`.
 */
export async function readProblem(response: Response): Promise<ProblemDocument> {
  const fallback: ProblemDocument = {
    type: 'about:blank',
    title: response.statusText || `HTTP ${response.status}`,
    status: response.status,
    code: `http_${response.status}`,
  };
  const contentType = response.headers.get('Content-Type') ?? '';
  if (!contentType.includes('json')) return fallback;
  let parsed: unknown;
  try {
    parsed = await response.json();
  } catch {
    return fallback;
  }
  if (typeof parsed !== 'object' || parsed === null) return fallback;
  const raw = parsed as Record<string, unknown>;
  return {
    type: typeof raw.type === 'string' ? raw.type : fallback.type,
    title: typeof raw.title === 'string' ? raw.title : fallback.title,
    // The HTTP status is authoritative; a body that disagrees is a server bug we should not propagate.
    status: response.status,
    code: typeof raw.code === 'string' ? (raw.code as ProblemDocument['code']) : fallback.code,
    ...(typeof raw.detail === 'string' ? { detail: raw.detail } : {}),
    ...(Array.isArray(raw.errors) ? { errors: raw.errors.filter(isFieldError) } : {}),
  };
}

function isFieldError(value: unknown): value is ProblemFieldError {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate.field === 'string' && typeof candidate.message === 'string';
}

/** One request of {@link requestApi}. */
export interface ApiCall {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The `Authorization` header, e.g. `Bearer <token>`. */
  readonly authorization: string;
  /** Sent as JSON when present. */
  readonly body?: unknown;
  /** Gives up after this long (an {@link ApiNetworkError}); 15 s by default. */
  readonly timeoutMs?: number;
}

/**
 * One request to the API outside the browser: resolves with the answer's JSON, rejects with
 * {@link ApiProblemError} for an error status and with {@link ApiNetworkError} when no answer came.
 */
export async function requestApi<T>(url: string, call: ApiCall): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: call.method ?? 'GET',
      headers: {
        Authorization: call.authorization,
        Accept: 'application/json, application/problem+json',
        ...(call.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      signal: AbortSignal.timeout(call.timeoutMs ?? 15_000),
    });
  } catch (error) {
    throw new ApiNetworkError(url, { cause: error });
  }
  if (!response.ok) throw new ApiProblemError(await readProblem(response));
  return readJson<T>(response);
}
