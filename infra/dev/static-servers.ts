import { once } from 'node:events';
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, sep } from 'node:path';
import sirv from 'sirv';
import { releaseStoreSecurityHeaders, shellSecurityHeaders } from '@atrium/shell/security-headers';
// The registry's rule for remote names and versions: the store serves exactly what can be registered.
import { remoteNameProblem, versionProblem } from '@atrium/sdk/remote-rules';

export interface RunningServer {
  readonly url: string;
  close(): Promise<void>;
}

async function listen(server: Server, port: number, host: string): Promise<RunningServer> {
  server.listen(port, host);
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([error]) => {
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(
        code === 'EADDRINUSE'
          ? `Port ${port} is already in use. Find the process with \`ss -ltnp 'sport = :${port}'\` and stop it, or set another port.`
          : String(error),
      );
    }),
  ]);
  return {
    // The port the system chose when asked for port 0.
    url: `http://localhost:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// One path segment as the release CLI writes them: no dot first (no dotfiles, no `.` or `..`), no `%`
// (no encoded dots or slashes for a decoder to turn into a traversal), no backslash.
const SEGMENT = /^[A-Za-z0-9_~+-][A-Za-z0-9._~+-]*$/;

/**
 * The file a release store request names, relative to the store (`<remote>/<version>/<file…>`), or
 * undefined when the path is anything else: the remote and version must be ones the registry accepts, and
 * every segment plain, checked on the raw path before anything is decoded or touches the file system.
 */
export function releaseFilePath(rawPath: string): string | undefined {
  const [root, remote, version, ...file] = rawPath.split('/');
  if (root !== '' || remote === undefined || version === undefined || file.length === 0) return undefined;
  if (![remote, version, ...file].every((segment) => SEGMENT.test(segment))) return undefined;
  if (remoteNameProblem(remote) || versionProblem(version)) return undefined;
  return [remote, version, ...file].join('/');
}

/**
 * The release store: immutable, versioned remote builds under `/<remote>/<version>/`, served like a CDN.
 * Files never change under a version, so they may be cached forever; CORS is open because the shell on
 * another origin fetches the manifest and chunks. It serves only paths {@link releaseFilePath} accepts and
 * files really inside its folder (a symbolic link out of it is not followed), with the security headers its
 * nginx sends (no TLS here, so no Strict-Transport-Security) on every answer.
 */
export function serveReleaseStore(options: {
  dir: string;
  port: number;
  host: string;
}): Promise<RunningServer> {
  const files = sirv(options.dir, {
    dev: true, // releases appear while the server runs; skip sirv's start-up file index
    etag: true,
    // The `.br` and `.gz` copies a production build writes beside each text file (PrecompressPlugin), sent
    // as they are to browsers that accept them, with `Vary: Accept-Encoding`.
    brotli: true,
    gzip: true,
    setHeaders(res, pathname) {
      res.setHeader(
        'Cache-Control',
        pathname.endsWith('mf-manifest.json') ? 'no-cache' : 'public, max-age=31536000, immutable',
      );
    },
  });
  const root = realpathSync(options.dir);
  const notFound = (res: ServerResponse) => {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('Not found\n');
  };
  const server = createServer((req, res) => {
    for (const [name, value] of Object.entries(releaseStoreSecurityHeaders())) res.setHeader(name, value);
    // The shell on another origin fetches manifests and loads scripts with CORS (SRI needs it).
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' });
      res.end('Method not allowed\n');
      return;
    }
    const file = releaseFilePath((req.url ?? '/').split('?')[0]!);
    // The compressed copies too: the static handler may send one of them in the file's place.
    if (
      file === undefined ||
      !isFileInside(root, join(root, file)) ||
      !variantsInside(root, join(root, file))
    ) {
      notFound(res);
      return;
    }
    files(req, res, () => notFound(res));
  });
  return listen(server, options.port, options.host);
}

/** Whether each precompressed copy of `path` that exists (`.br`, `.gz`) is a file inside `root` too. */
function variantsInside(root: string, path: string): boolean {
  return ['.br', '.gz'].every((suffix) => !lexists(path + suffix) || isFileInside(root, path + suffix));
}

function lexists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `path` is a file that, symbolic links resolved, is inside `root`. Only files: for a folder the
 * static handler would go looking for an index file of its own, past this check.
 */
function isFileInside(root: string, path: string): boolean {
  try {
    const real = realpathSync(path);
    return real.startsWith(root + sep) && statSync(real).isFile();
  } catch {
    return false;
  }
}

/**
 * The shell: its static build with a single-page-app fallback, plus the run-time documents the build
 * deliberately does not contain (where Keycloak, the API and the remotes are). Every response carries the
 * security headers its nginx container sends (shell/app/deploy/security-headers.ts), with the API and Keycloak
 * taken from the `/atrium.config.json` document it serves.
 */
export function serveShell(options: {
  dir: string;
  port: number;
  host: string;
  documents: Record<string, () => unknown>;
  /** Where remotes are loaded from: allowed as script, style and connect sources. */
  remoteOrigins: readonly string[];
}): Promise<RunningServer> {
  const securityHeaders = () => {
    const config = options.documents['/atrium.config.json']?.() as
      | {
          apiBaseUrl?: string;
          oidc?: { authority?: string };
          devOverrides?: { allowedOrigins?: readonly string[] };
          tracing?: { otlpTracesUrl?: string } | null;
        }
      | undefined;
    if (!config?.apiBaseUrl || !config.oidc?.authority) {
      throw new Error('serveShell needs an /atrium.config.json document with apiBaseUrl and oidc.authority');
    }
    return shellSecurityHeaders({
      apiUrl: config.apiBaseUrl.replace(/\/+$/, ''),
      authority: config.oidc.authority.replace(/\/+$/, ''),
      remoteOrigins: options.remoteOrigins,
      // The dev servers the shell's config lets developers load, and only when it names them.
      devOverrideOrigins: config.devOverrides?.allowedOrigins ?? [],
      // Where the shell sends its spans, when the config turns tracing on.
      tracesUrl: config.tracing?.otlpTracesUrl,
    });
  };
  securityHeaders(); // fail at start, not on the first request
  const files = sirv(options.dir, {
    single: true,
    etag: true,
    brotli: true,
    gzip: true,
    setHeaders(res, pathname) {
      // The manifest says what this build provides; the next build's replaces it under the same name.
      res.setHeader(
        'Cache-Control',
        pathname.endsWith('.html') || pathname === '/mf-manifest.json'
          ? 'no-cache'
          : 'public, max-age=31536000, immutable',
      );
    },
  });
  const server = createServer((req, res) => {
    for (const [name, value] of Object.entries(securityHeaders())) res.setHeader(name, value);
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const document = options.documents[path];
    if (document) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' });
      res.end(JSON.stringify(document()));
      return;
    }
    files(req, res);
  });
  return listen(server, options.port, options.host);
}
