import type { Client, MaybeOptionalInit } from 'openapi-fetch';
import type {
  HttpMethod,
  PathsWithMethod,
  ResponseObjectMap,
  SuccessResponse,
} from 'openapi-typescript-helpers';
import {
  ApiAuthorizationError,
  ApiForeignOriginError,
  ApiRouteRefusedError,
  ApiNetworkError,
  ApiProblemError,
} from './api-errors';
import { readJson, readProblem } from './problem-transport';
import type { paths } from './generated/api';

/**
 * One API request the client is about to send, as {@link ApiClientOptions.authorize} must authorise it.
 */
export interface ApiRequestTarget {
  /** The HTTP method, upper case (the proof's `htm`). */
  readonly method: string;
  /** The request URL without query and fragment (the proof's `htu`), e.g. `http://localhost:3000/api/me`. */
  readonly url: string;
}

/**
 * The headers that authorise one request with a sender-constrained token (OAuth 2.0 DPoP, RFC 9449).
 */
export interface ApiAuthorization {
  /** The `Authorization` header: `DPoP <access token>`. */
  readonly authorization: string;
  /**
   * The `DPoP` header: a proof JWT signed with the key the token is bound to, made for this request's method
   * and URL only (`htm`, `htu`) and carrying the token's hash (`ath`).
   */
  readonly dpop: string;
}

/**
 * One request's span, as {@link ApiClientOptions.trace} starts it: the headers that carry the trace to the API
 * (W3C Trace Context: `traceparent`, maybe `tracestate`), and how it ends.
 */
export interface ApiRequestSpan {
  readonly headers: Readonly<Record<string, string>>;
  /** Ends the span with the answer's status, or with the error when no answer came. */
  end(outcome: { readonly status: number } | { readonly error: unknown }): void;
}

/**
 * How {@link createApiClient} reaches the API and authorises requests. The client never sees a key and
 * never talks to the identity provider: the shell does both and hands over {@link ApiClientOptions.authorize}.
 */
export interface ApiClientOptions {
  /** API origin (and optional path prefix), e.g. `http://localhost:3000`. Request paths are appended. */
  readonly baseUrl: string;
  /**
   * Returns the headers for one request: a currently valid token and a fresh proof for exactly this method
   * and URL (the shell renews the token first when it is close to expiry). Called again for every request and
   * every retry, since a proof is valid for one request only. A request whose authorisation lacks either
   * header is refused with {@link ApiAuthorizationError} and never sent; a rejection is passed to the caller
   * (the session is over).
   */
  readonly authorize: (request: ApiRequestTarget) => Promise<ApiAuthorization>;
  /**
   * Forces a token renewal. Called once when the API answers 401, after which the request is authorised
   * again and retried once. Rejecting means the session is over; the 401 is then reported.
   */
  readonly renewAuthorization: () => Promise<void>;
  /** The fetch implementation; defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
  /**
   * Routes this client never calls: given a request's path (decoded, lower case, no trailing slash), the reason
   * it is refused, or undefined. A refused request rejects with {@link ApiRouteRefusedError} before anything is
   * authorised.
   */
  readonly refuse?: (path: string) => string | undefined;
  /**
   * Tracing, when the shell's config turns it on: starts a span for each request sent (each retry too) and gives
   * the headers that continue it in the API. A failure here never fails the request: it is sent untraced.
   */
  readonly trace?: (request: ApiRequestTarget) => Promise<ApiRequestSpan>;
}

/**
 * Per-request options.
 */
export interface ApiRequestOptions {
  /** Cancels the request; an aborted request rejects with the abort reason, not an API error. */
  readonly signal?: AbortSignal;
  /** Extra headers; `Authorization` and `DPoP` are always set by the client and cannot be overridden. */
  readonly headers?: Record<string, string>;
  /** Lets the request outlive the page (fetch `keepalive`, bodies up to 64 KiB): reports sent as it is hidden. */
  readonly keepalive?: boolean;
}

/** A method of the typed client: a path of the API's contract (with `{param}`), its typed answer. */
type TypedMethod<M extends HttpMethod> = <
  P extends PathsWithMethod<paths, M>,
  I extends MaybeOptionalInit<paths[P], M>,
>(
  path: P,
  ...init: undefined extends I ? [I?] : [I]
) => Promise<Answer<paths[P][M]>>;

/** The success body of an operation of the contract. */
type Answer<Operation> =
  Operation extends Record<string | number, unknown>
    ? SuccessResponse<ResponseObjectMap<Operation>, 'application/json'>
    : never;

/**
 * An authenticated JSON client for the Atrium API. Every method resolves with the parsed JSON body
 * (`undefined` for 204), or rejects with {@link ApiProblemError} (error status) or {@link ApiNetworkError}
 * (no answer).
 *
 * `GET`, `POST`, `PUT`, `PATCH` and `DELETE` are typed by the API's OpenAPI document (openapi-fetch over the
 * generated `paths`): the path, its parameters, the body and the answer are checked at compile time, e.g.
 * `api.PUT('/api/remotes/{name}/active', { params: { path: { name } }, body: { version } })`. The lower-case
 * methods take any path and a type argument, for calls outside the contract.
 */
export interface ApiClient {
  readonly GET: TypedMethod<'get'>;
  readonly POST: TypedMethod<'post'>;
  readonly PUT: TypedMethod<'put'>;
  readonly PATCH: TypedMethod<'patch'>;
  readonly DELETE: TypedMethod<'delete'>;
  /** Sends any method; `body` is serialised as JSON when present. Absolute URLs as for {@link ApiClient.get}. */
  request<T>(method: string, path: string, body?: unknown, options?: ApiRequestOptions): Promise<T>;
  /**
   * `GET path`. A `path` may also be an absolute http(s) URL on the API's own origin; any other origin is
   * refused with {@link ApiForeignOriginError} before anything is authorised, so the token never leaves the
   * API.
   */
  get<T>(path: string, options?: ApiRequestOptions): Promise<T>;
  /** `POST path` with a JSON body. */
  post<T>(path: string, body?: unknown, options?: ApiRequestOptions): Promise<T>;
  /** `PUT path` with a JSON body. */
  put<T>(path: string, body?: unknown, options?: ApiRequestOptions): Promise<T>;
  /** `PATCH path` with a JSON body. */
  patch<T>(path: string, body?: unknown, options?: ApiRequestOptions): Promise<T>;
  /** `DELETE path`. */
  delete<T>(path: string, options?: ApiRequestOptions): Promise<T>;
}

interface Exchange {
  readonly method: string;
  readonly url: string;
  readonly body: string | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly signal: AbortSignal | undefined;
  readonly keepalive?: boolean | undefined;
}

/**
 * Creates an {@link ApiClient}. Remotes do not call this: they get the shell's client from `useApi()`.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const apiOrigin = new URL(baseUrl).origin;
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  async function send(exchange: Exchange): Promise<Response> {
    const { method, url, body, signal } = exchange;
    const authorization = await options.authorize({ method, url: proofUrl(url) });
    // A token without a proof would be a plain bearer token again: refuse rather than send it.
    if (
      !/^DPoP \S+$/.test(authorization.authorization) ||
      !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(authorization.dpop)
    ) {
      throw new ApiAuthorizationError(url);
    }
    // Set by name whatever the caller's spelling, so no header is sent twice and Authorization and DPoP
    // cannot be replaced.
    const headers = new Headers({ Accept: 'application/json, application/problem+json' });
    for (const [name, value] of Object.entries(withoutAuthorization(exchange.headers))) {
      headers.set(name, value);
    }
    const span = await startSpan(method, url);
    for (const [name, value] of Object.entries(span.headers)) headers.set(name, value);
    headers.set('Authorization', authorization.authorization);
    headers.set('DPoP', authorization.dpop);
    if (body !== undefined) headers.set('Content-Type', 'application/json');
    try {
      const response = await doFetch(url, {
        method,
        headers,
        body: body ?? null,
        signal: signal ?? null,
        ...(exchange.keepalive ? { keepalive: true } : {}),
      });
      span.end({ status: response.status });
      return response;
    } catch (error) {
      span.end({ error });
      // An abort is the caller's decision, not a network failure: let it through unchanged.
      if (signal?.aborted) throw error;
      throw new ApiNetworkError(url, { cause: error });
    }
  }

  /** The request's span, if tracing is on; tracing that fails never fails the request (it goes untraced). */
  async function startSpan(method: string, url: string): Promise<ApiRequestSpan> {
    let span: ApiRequestSpan | undefined;
    try {
      span = await options.trace?.({ method, url: proofUrl(url) });
    } catch {
      span = undefined;
    }
    return {
      headers: span?.headers ?? {},
      end(outcome) {
        try {
          span?.end(outcome);
        } catch {
          // The answer is the caller's whatever became of its span.
        }
      },
    };
  }

  /** One request with its proof; a 401 renews the token once and retries; an error status rejects. */
  async function exchange(request: Exchange): Promise<Response> {
    // Every remote shares this client, so one mistyped or injected URL must not hand the token to a third
    // party: only the API's origin is ever sent a request, let alone the token.
    if (new URL(request.url).origin !== apiOrigin) throw new ApiForeignOriginError(request.url, apiOrigin);
    const refused = options.refuse?.(routeOf(request.url));
    if (refused !== undefined) throw new ApiRouteRefusedError(request.url, refused);
    let response = await send(request);
    if (response.status === 401) {
      // The token may have expired between the check and the call, or been revoked: renew once and retry
      // once (with a new proof). A second 401 is final so a broken session cannot loop.
      let renewed: boolean;
      try {
        await options.renewAuthorization();
        renewed = true;
      } catch {
        renewed = false;
      }
      if (renewed) {
        await response.body?.cancel();
        response = await send(request);
      }
    }
    if (!response.ok) throw new ApiProblemError(await readProblem(response));
    return response;
  }

  async function request<T>(
    method: string,
    path: string,
    body?: unknown,
    requestOptions?: ApiRequestOptions,
  ): Promise<T> {
    const absolute = /^https?:\/\//i.test(path);
    const url = absolute ? path : `${baseUrl}${path.startsWith('/') ? path : `/${path}`}`;
    if (absolute && new URL(path).origin !== apiOrigin) throw new ApiForeignOriginError(path, apiOrigin);
    const response = await exchange({
      method: method.toUpperCase(),
      url,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: requestOptions?.headers,
      signal: requestOptions?.signal,
      keepalive: requestOptions?.keepalive,
    });
    return readJson<T>(response);
  }

  // The typed methods: openapi-fetch builds the request from the contract, this client authorises and
  // sends it (same proof, renewal and errors as above). Loaded with the first typed call, so the shell's
  // start (which needs only `get`) does not download it before the first remote (the initial JS budget).
  let typed: Promise<Client<paths>> | undefined;
  const typedClient = () =>
    (typed ??= import('openapi-fetch').then(({ default: createClient }) =>
      createClient<paths>({
        baseUrl,
        fetch: async (input: Request) => {
          const body = input.body === null ? undefined : await input.text();
          return exchange({
            method: input.method,
            url: input.url,
            body: body === '' ? undefined : body,
            headers: Object.fromEntries(input.headers),
            signal: input.signal,
          });
        },
      }),
    ));
  const typedMethod = <M extends HttpMethod>(method: M): TypedMethod<M> =>
    (async (path: string, init?: Record<string, unknown>) => {
      const client = await typedClient();
      const { data } = await client.request(method as never, path as never, init as never);
      return data as unknown;
    }) as unknown as TypedMethod<M>;

  return {
    GET: typedMethod('get'),
    POST: typedMethod('post'),
    PUT: typedMethod('put'),
    PATCH: typedMethod('patch'),
    DELETE: typedMethod('delete'),
    request,
    get: (path, requestOptions) => request('GET', path, undefined, requestOptions),
    post: (path, body, requestOptions) => request('POST', path, body, requestOptions),
    put: (path, body, requestOptions) => request('PUT', path, body, requestOptions),
    patch: (path, body, requestOptions) => request('PATCH', path, body, requestOptions),
    delete: (path, requestOptions) => request('DELETE', path, undefined, requestOptions),
  };
}

/** The DPoP `htu`: the URL as the browser will send it, without query and fragment (RFC 9449 §4.2). */
function proofUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

function withoutAuthorization(headers: Record<string, string> | undefined): Record<string, string> {
  if (headers === undefined) return {};
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !['authorization', 'dpop'].includes(name.toLowerCase())),
  );
}

/** A URL's path as the API routes it: percent-decoded, lower case, repeated and trailing slashes folded. */
function routeOf(url: string): string {
  let path = new URL(url).pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Not decodable: the API will not route it either; compared as it is.
  }
  return path
    .toLowerCase()
    .replace(/\/{2,}/g, '/')
    .replace(/\/+$/, '');
}
