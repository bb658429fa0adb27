export interface RunningServer {
    readonly url: string;
    close(): Promise<void>;
}
/**
 * The release store: immutable, versioned remote builds under `/<remote>/<version>/`, served like a CDN.
 * Files never change under a version, so they may be cached forever; CORS is open because the shell on
 * another origin fetches the manifest and chunks. Security headers as its nginx sends them (no TLS here, so no
 * Strict-Transport-Security).
 */
export declare function serveReleaseStore(options: {
    dir: string;
    port: number;
    host: string;
}): Promise<RunningServer>;
/**
 * The shell: its static build with a single-page-app fallback, plus the run-time documents the build
 * deliberately does not contain (where Keycloak, the API and the remotes are). Every response carries the
 * security headers its nginx container sends (shell/app/deploy/security-headers.ts), with the API and Keycloak
 * taken from the `/atrium.config.json` document it serves.
 */
export declare function serveShell(options: {
    dir: string;
    port: number;
    host: string;
    documents: Record<string, () => unknown>;
    /** Where remotes are loaded from: allowed as script, style and connect sources. */
    remoteOrigins: readonly string[];
}): Promise<RunningServer>;
