// `npm start`: installs Java when missing (Keycloak), builds what is stale, then runs the whole platform until Ctrl-C.
import { assertNodeVersion, ensureDependencies } from './toolchain.ts';
import { repoRoot as root } from '../lib/paths.ts';

assertNodeVersion();
const started = Date.now();
const log = (line: string) => console.log(`[atrium] ${line}`);
ensureDependencies(root, log);

// Loaded after the dependency check: these modules import packages from node_modules.
const { buildStale } = await import('./build.ts');
const { startStack } = await import('./stack.ts');
const system = await import('./system-parts.ts');

try {
  system.ensureJava(system.systemContext(log));
  await buildStale(root, log);
  const stack = await startStack({ log });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  // Only the development default is printed; a chosen password stays out of the terminal.
  const adminLogin =
    process.env.KEYCLOAK_ADMIN_PASSWORD || process.env.KC_BOOTSTRAP_ADMIN_PASSWORD
      ? 'admin password from the environment'
      : 'admin / admin';
  console.log(`
Atrium is running (ready in ${seconds} s). Press Ctrl-C to stop.

  Shell           ${stack.urls.shell}
  API             ${stack.urls.api}/api
  Keycloak        ${stack.urls.keycloak}   (admin console: ${stack.urls.keycloak}/admin, ${adminLogin})
  Issuer          ${stack.urls.issuer}
  Release store   ${stack.urls.releases}
  Mail inbox      ${stack.urls.mail}   (every mail Keycloak sends: sign-up verification, password reset)
  Remotes         ${stack.remotes.map((remote) => `${remote.title} → ${remote.entry}`).join('\n                  ')}

  Demo users      alice / alice   (atrium-user)
                  ada / ada       (atrium-user, atrium-admin, atrium-developer)
`);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping…`);
    await stack.stop();
    log('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
} catch (error) {
  console.error(`\n[atrium] Could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
