// The security headers of everything that serves the shell or the remotes' releases, written once:
// - the rspack dev server (`npm run dev --workspace shell/app`, rspack.config.ts) and the local static server of
//   `npm start` and the browser tests (infra/dev/static-servers.ts) call these functions;
// - the nginx configurations (shell/app/deploy/nginx.conf.template, infra/release-store/nginx.conf) carry blocks
//   generated from them: `node shell/app/deploy/security-headers.ts` rewrites the blocks, and
//   security-headers.spec.ts fails when one is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REMOTE_LOADER_POLICY } from '../src/remote-loading/loader/remote-loader-policy.ts';

/** Where the shell's Content-Security-Policy lets it load code and send requests. */
export interface ShellOrigins {
  /** The API base URL (apiBaseUrl of atrium.config.json). */
  readonly apiUrl: string;
  /** The OIDC authority, i.e. Keycloak's realm URL. */
  readonly authority: string;
  /** Where remotes are loaded from (the release store or its CDN): ATRIUM_REMOTE_ORIGINS. */
  readonly remoteOrigins: readonly string[];
  /**
   * Dev servers a developer's session may load a remote from (`devOverrides.allowedOrigins` of the run-time
   * config, e.g. `http://localhost:*`): allowed, with their web sockets for hot updates, only when set.
   */
  readonly devOverrideOrigins?: readonly string[];
  /** Their web sockets (hot updates); derived from `devOverrideOrigins` (`http` → `ws`) unless given. */
  readonly devOverrideSockets?: readonly string[];
  /**
   * Where the shell sends its API calls' spans when tracing is on (`tracing.otlpTracesUrl` of the run-time
   * config): allowed as a request target, that URL alone, only when set.
   */
  readonly tracesUrl?: string | undefined;
}

/**
 * The shell's Content-Security-Policy: scripts only from the shell itself, the release origins and the configured
 * dev-override origins; requests only to the shell, the API, Keycloak's realm and those origins. The shell has no
 * inline script or style, and remotes' stylesheets come from the release store. Sources with a trailing / match
 * every path below them.
 *
 * Trusted Types for scripts: a script URL, HTML or script text may reach the DOM only through a policy, and the
 * only policies are the remote loader's and the `default` one it creates with the same rule, which pass only the
 * shell's chunks and the files the registry pinned for the releases being loaded
 * (src/remote-loading/loader/trusted-script-urls.ts). Nothing else of React's, the bundler's or the federation runtime's
 * needs one: they create no HTML from strings, and their chunk loaders' script URLs go through `default`.
 */
export function shellContentSecurityPolicy({
  apiUrl,
  authority,
  remoteOrigins,
  devOverrideOrigins = [],
  devOverrideSockets = devOverrideOrigins.map((origin) => origin.replace(/^http/, 'ws')),
  tracesUrl,
}: ShellOrigins): string {
  const remotes = [...remoteOrigins, ...devOverrideOrigins].join(' ');
  const sockets = devOverrideSockets;
  const connect = [remotes, ...sockets, ...(tracesUrl ? [tracesUrl] : [])].join(' ');
  return [
    "default-src 'self'",
    `script-src 'self' ${remotes}`,
    `style-src 'self' ${remotes}`,
    `img-src 'self' data: ${remotes}`,
    `font-src 'self' ${remotes}`,
    `connect-src 'self' ${apiUrl}/ ${authority}/ ${connect}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "object-src 'none'",
    "form-action 'self'",
    "require-trusted-types-for 'script'",
    `trusted-types ${REMOTE_LOADER_POLICY} default`,
  ].join('; ');
}

/**
 * Powerful browser features no part of Atrium uses, switched off for the shell and every remote it loads (a
 * remote runs in the shell's document): an injected script cannot turn on a camera or read a location.
 */
export const PERMISSIONS_POLICY = [
  'accelerometer',
  'bluetooth',
  'camera',
  'display-capture',
  'geolocation',
  'gyroscope',
  'hid',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'serial',
  'usb',
]
  .map((feature) => `${feature}=()`)
  .join(', ');

/**
 * HTTPS only, for a year, subdomains included. Sent only on responses that came over TLS (at the server or at a
 * proxy in front, X-Forwarded-Proto: https): over plain HTTP a browser ignores it, and the local servers have no
 * TLS at all.
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

/** Headers of every response of every static server, shell or release store. */
const COMMON_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': PERMISSIONS_POLICY,
} as const;

/** Security headers of every shell response (besides Strict-Transport-Security, which depends on TLS). */
export function shellSecurityHeaders(origins: ShellOrigins): Record<string, string> {
  return { 'Content-Security-Policy': shellContentSecurityPolicy(origins), ...COMMON_HEADERS };
}

/**
 * Security headers of every release-store response. The store serves code and styles that the shell loads as
 * subresources, on which a CSP has no effect; a document opened there directly (an HTML file slipped into a
 * release) gets a sandbox with nothing allowed.
 */
export function releaseStoreSecurityHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'; sandbox",
    ...COMMON_HEADERS,
  };
}

/**
 * The shell's nginx: origins come from the container's environment, filled in by the image's envsubst step.
 * Dev-override origins are empty unless ATRIUM_DEV_OVERRIDE_ORIGINS is set (15-atrium-dev-overrides.envsh
 * derives their sockets), and the traces URL unless ATRIUM_OTLP_TRACES_URL is: either leaves only spaces in the
 * policy.
 */
const NGINX_SHELL_ORIGINS: ShellOrigins = {
  apiUrl: '${ATRIUM_API_URL}',
  authority: '${ATRIUM_OIDC_AUTHORITY}',
  remoteOrigins: ['${ATRIUM_REMOTE_ORIGINS}'],
  devOverrideOrigins: ['${ATRIUM_DEV_OVERRIDE_ORIGINS}'],
  devOverrideSockets: ['${ATRIUM_DEV_OVERRIDE_SOCKETS}'],
  tracesUrl: '${ATRIUM_OTLP_TRACES_URL}',
};

const BEGIN_HTTP = '# BEGIN generated http-level security settings';
const BEGIN_SERVER = '  # BEGIN generated security headers';
const GENERATED_NOTE =
  'from shell/app/deploy/security-headers.ts; run `node shell/app/deploy/security-headers.ts`';

/** The http-level part: Strict-Transport-Security's value, set only for requests that came over TLS. */
function nginxHttpBlock(): string {
  return [
    `${BEGIN_HTTP} (${GENERATED_NOTE})`,
    'map "$scheme:$http_x_forwarded_proto" $atrium_hsts {',
    '  default "";',
    `  "~^https:" "${STRICT_TRANSPORT_SECURITY}";`,
    `  "~:https$" "${STRICT_TRANSPORT_SECURITY}";`,
    '}',
    '# END generated',
  ].join('\n');
}

/**
 * The server-level add_header lines. Server level on purpose: one add_header inside a location drops every
 * server-level one for that location, so locations must not add headers of their own.
 */
function nginxServerBlock(headers: Record<string, string>): string {
  return [
    `${BEGIN_SERVER} (${GENERATED_NOTE})`,
    ...Object.entries(headers).map(([name, value]) => {
      if (value.includes('"')) throw new Error(`${name} contains a double quote, which nginx would misread`);
      return `  add_header ${name} "${value}" always;`;
    }),
    '  # An empty value (no TLS) sends no header.',
    '  add_header Strict-Transport-Security $atrium_hsts always;',
    '  # END generated',
  ].join('\n');
}

const root = join(import.meta.dirname, '../../..');

/** The nginx configurations that carry generated blocks, and the headers of each. */
export const NGINX_CONFIGS = [
  {
    path: join(root, 'shell/app/deploy/nginx.conf.template'),
    headers: shellSecurityHeaders(NGINX_SHELL_ORIGINS),
  },
  { path: join(root, 'infra/release-store/nginx.conf'), headers: releaseStoreSecurityHeaders() },
] as const;

/** `text` with its generated blocks (marked BEGIN generated ... END generated) rewritten. */
export function renderNginxConfig(text: string, headers: Record<string, string>): string {
  const replaceBlock = (input: string, begin: string, block: string) => {
    const start = input.indexOf(begin);
    const end = input.indexOf('# END generated', start);
    if (start < 0 || end < 0) throw new Error(`no block starting with "${begin.trim()}"`);
    return input.slice(0, start) + block + input.slice(end + '# END generated'.length);
  };
  return replaceBlock(
    replaceBlock(text, BEGIN_HTTP, nginxHttpBlock()),
    BEGIN_SERVER,
    nginxServerBlock(headers),
  );
}

if (import.meta.main) {
  for (const { path, headers } of NGINX_CONFIGS) {
    writeFileSync(path, renderNginxConfig(readFileSync(path, 'utf8'), headers));
    console.log(`wrote ${path}`);
  }
}
