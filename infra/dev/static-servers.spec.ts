import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellSecurityHeaders } from './static-servers.ts';

const template = readFileSync(
  resolve(import.meta.dirname, '../../shell/app/deploy/nginx.conf.template'),
  'utf8',
);

/** The server-level headers of the shell's nginx template, with its variables filled as envsubst would. */
function nginxHeaders(env: Record<string, string>): Record<string, string> {
  const headers = [...template.matchAll(/^ {2}add_header (\S+) "([^"]*)" always;$/gm)];
  return Object.fromEntries(
    headers.map(([, name, value]) => [
      name!,
      value!.replace(
        /\$\{([A-Z_]+)\}/g,
        (_match, variable: string) => env[variable] ?? `<unset ${variable}>`,
      ),
    ]),
  );
}

describe('the local shell server', () => {
  it('sends the same security headers as the shell container', () => {
    const local = shellSecurityHeaders({
      apiUrl: 'http://api.test',
      authority: 'http://kc.test/realms/atrium',
      remoteOrigins: ['http://releases.test', 'https://cdn.test'],
    });
    const container = nginxHeaders({
      ATRIUM_API_URL: 'http://api.test',
      ATRIUM_OIDC_AUTHORITY: 'http://kc.test/realms/atrium',
      ATRIUM_REMOTE_ORIGINS: 'http://releases.test https://cdn.test',
    });

    expect(Object.keys(container)).toEqual([
      'Content-Security-Policy',
      'X-Content-Type-Options',
      'Referrer-Policy',
    ]);
    expect(local).toEqual(container);
  });

  it('allows scripts only from the shell and the release stores, and requests only to known origins', () => {
    const policy = shellSecurityHeaders({
      apiUrl: 'http://api.test',
      authority: 'http://kc.test/realms/atrium',
      remoteOrigins: ['http://releases.test'],
    })['Content-Security-Policy'];
    const directives = Object.fromEntries(
      policy.split('; ').map((directive): [string, string[]] => {
        const [name = '', ...sources] = directive.split(' ');
        return [name, sources];
      }),
    );

    expect(directives['script-src']).toEqual(["'self'", 'http://releases.test']);
    expect(directives['connect-src']).toEqual([
      "'self'",
      'http://api.test/',
      'http://kc.test/realms/atrium/',
      'http://releases.test',
    ]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['object-src']).toEqual(["'none'"]);
    expect(directives['base-uri']).toEqual(["'self'"]);
    expect(policy).not.toContain('unsafe');
  });
});
