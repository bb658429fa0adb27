import { createServer, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import sirv from 'sirv';
import {
  releaseStoreSecurityHeaders,
  shellSecurityHeaders,
} from '../../shell/app/deploy/security-headers.ts';

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
    url: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Whether a request path has a segment starting with a dot, also when percent-encoded; unreadable counts. */
function hasDotSegment(url: string): boolean {
  const path = new URL(url, 'http://localhost').pathname;
  try {
    return /(^|\/)\./.test(decodeURIComponent(path));
  } catch {
    return true;
  }
}

/**
 * The release store: immutable, versioned remote builds under `/<remote>/<version>/`, served like a CDN.
 * Files never change under a version, so they may be cached forever; CORS is open because the shell on
 * another origin fetches the manifest and chunks. Security headers as its nginx sends them (no TLS here, so no
 * Strict-Transport-Security).
 */
export function serveReleaseStore(options: {
  dir: string;
  port: number;
  host: string;
}): Promise<RunningServer> {
  const files = sirv(options.dir, {
    dev: true, // releases appear while the server runs; skip sirv's start-up file index
    etag: true,
    setHeaders(res, pathname) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader(
        'Cache-Control',
        pathname.endsWith('mf-manifest.json') ? 'no-cache' : 'public, max-age=31536000, immutable',
      );
    },
  });
  const notFound = (res: ServerResponse) => {
    res.writeHead(404, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' });
    res.end('Not found\n');
  };
  const server = createServer((req, res) => {
    for (const [name, value] of Object.entries(releaseStoreSecurityHeaders())) res.setHeader(name, value);
    // No dotfile at any depth (.env, .git), like the store's nginx: sirv's dev mode would serve them.
    if (hasDotSegment(req.url ?? '/')) return notFound(res);
    files(req, res, () => notFound(res));
  });
  return listen(server, options.port, options.host);
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
      { apiBaseUrl?: string; oidc?: { authority?: string } } | undefined;
    if (!config?.apiBaseUrl || !config.oidc?.authority) {
      throw new Error('serveShell needs an /atrium.config.json document with apiBaseUrl and oidc.authority');
    }
    return shellSecurityHeaders({
      apiUrl: config.apiBaseUrl.replace(/\/+$/, ''),
      authority: config.oidc.authority.replace(/\/+$/, ''),
      remoteOrigins: options.remoteOrigins,
    });
  };
  securityHeaders(); // fail at start, not on the first request
  const files = sirv(options.dir, {
    single: true,
    etag: true,
    setHeaders(res, pathname) {
      res.setHeader(
        'Cache-Control',
        pathname.endsWith('.html') ? 'no-cache' : 'public, max-age=31536000, immutable',
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
