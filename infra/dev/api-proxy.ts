import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startProcess, type ManagedProcess } from '../lib/processes.ts';
import { waitForHttp } from '../lib/wait.ts';
import { findNginx } from './system-parts.ts';

/**
 * A round-robin reverse proxy (nginx) in front of several API processes: what an ingress does in a cluster.
 * Browser tests run through it to prove the API keeps no state between requests.
 * Every response names the process that served it in `X-Atrium-Upstream` (read by the tests, not by
 * the shell, so it is not exposed to scripts through CORS).
 */
export async function startApiProxy(options: {
  port: number;
  upstreamPorts: number[];
  workDir: string;
}): Promise<ManagedProcess> {
  const nginx = requireNginx();
  mkdirSync(join(options.workDir, 'logs'), { recursive: true });
  const config = `
worker_processes 1;
daemon off;
pid ${join(options.workDir, 'nginx.pid')};
error_log ${join(options.workDir, 'logs/error.log')} warn;
events { worker_connections 256; }
http {
  access_log ${join(options.workDir, 'logs/access.log')};
  client_body_temp_path ${join(options.workDir, 'client_body')};
  proxy_temp_path ${join(options.workDir, 'proxy')};
  fastcgi_temp_path ${join(options.workDir, 'fastcgi')};
  uwsgi_temp_path ${join(options.workDir, 'uwsgi')};
  scgi_temp_path ${join(options.workDir, 'scgi')};
  upstream atrium_api {
${options.upstreamPorts.map((port) => `    server 127.0.0.1:${port} max_fails=0;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${options.port};
    location / {
      proxy_pass http://atrium_api;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      add_header X-Atrium-Upstream $upstream_addr always;
    }
  }
}
`;
  const configFile = join(options.workDir, 'nginx.conf');
  writeFileSync(configFile, config);
  const proxy = startProcess({
    name: 'api-proxy',
    command: nginx,
    args: ['-c', configFile, '-p', options.workDir],
    cwd: options.workDir,
    logFile: join(options.workDir, 'logs/nginx.out'),
  });
  await waitForHttp(`http://127.0.0.1:${options.port}/api/health/live`, {
    timeoutMs: 15_000,
    isAlive: () => proxy.child.exitCode === null,
    hint: `See ${join(options.workDir, 'logs/error.log')}.`,
  });
  return proxy;
}

/** The machine's nginx; `npm test` installs it first (ensureNginx in system-parts.ts). */
function requireNginx(): string {
  const nginx = findNginx();
  if (nginx) return nginx;
  throw new Error(
    'The browser tests put two API processes behind nginx and need it installed ' +
      '(`npm test` installs it as root or through `sudo -n`; else: `sudo apt-get install nginx-light`).',
  );
}
