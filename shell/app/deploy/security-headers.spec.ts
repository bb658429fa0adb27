import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMPRESSIBLE_EXTENSIONS } from '../../sdk/build/precompress.ts';
import {
  NGINX_CONFIGS,
  PERMISSIONS_POLICY,
  releaseStoreSecurityHeaders,
  renderNginxConfig,
  shellSecurityHeaders,
} from './security-headers.ts';
import { REMOTE_LOADER_POLICY } from '../src/remote-loading/loader/remote-loader-policy.ts';

const [shellConfig, releaseStoreConfig] = NGINX_CONFIGS;
const shellTemplate = readFileSync(shellConfig.path, 'utf8');
const releaseStoreConf = readFileSync(releaseStoreConfig.path, 'utf8');

/** What the nginx image's envsubst step does to a template: fills the variables the environment defines. */
const envsubst = (text: string, env: Record<string, string>) =>
  text.replace(/\$\{([A-Z_]+)\}/g, (whole, name: string) => env[name] ?? whole);

/** The add_header directives of a configuration's server block (not of its locations), as name -> value. */
function serverHeaders(conf: string): Record<string, string> {
  return Object.fromEntries(
    [...conf.matchAll(/^ {2}add_header (\S+) "([^"]*)" always;$/gm)].map(([, name, value]) => [
      name!,
      value!,
    ]),
  );
}

/** Each `location ... { ... }` block's body (our configurations nest no blocks inside a location). */
const locations = (conf: string) => [...conf.matchAll(/^ {2}location ([^{]+)\{([^}]*)\}/gm)];

function directives(policy: string): Record<string, string[]> {
  return Object.fromEntries(
    policy.split('; ').map((directive): [string, string[]] => {
      const [name = '', ...sources] = directive.split(' ');
      return [name, sources];
    }),
  );
}

const env = {
  ATRIUM_API_URL: 'https://atrium.test',
  ATRIUM_OIDC_AUTHORITY: 'https://auth.test/realms/atrium',
  ATRIUM_REMOTE_ORIGINS: 'https://releases.test https://cdn.test',
  // Dev overrides off, as in the image by default (15-atrium-dev-overrides.envsh leaves these empty).
  ATRIUM_DEV_OVERRIDE_ORIGINS: '',
  ATRIUM_DEV_OVERRIDE_SOCKETS: '',
  ATRIUM_DEV_OVERRIDES_JSON: 'null',
  // Tracing off, as in the image by default (16-atrium-tracing.envsh).
  ATRIUM_OTLP_TRACES_URL: '',
  ATRIUM_TRACING_JSON: 'null',
};
const origins = {
  apiUrl: env.ATRIUM_API_URL,
  authority: env.ATRIUM_OIDC_AUTHORITY,
  remoteOrigins: env.ATRIUM_REMOTE_ORIGINS.split(' '),
};

describe("the shell's security headers", () => {
  it('allow scripts only from the shell and the release origins, and requests only to known origins', () => {
    const policy = directives(shellSecurityHeaders(origins)['Content-Security-Policy']!);
    expect(policy['script-src']).toEqual(["'self'", 'https://releases.test', 'https://cdn.test']);
    expect(policy['default-src']).toEqual(["'self'"]);
    expect(policy['connect-src']).toEqual([
      "'self'",
      'https://atrium.test/',
      'https://auth.test/realms/atrium/',
      'https://releases.test',
      'https://cdn.test',
    ]);
    expect(policy['frame-ancestors']).toEqual(["'none'"]);
    expect(policy['object-src']).toEqual(["'none'"]);
    expect(policy['base-uri']).toEqual(["'self'"]);
    expect(JSON.stringify(policy)).not.toMatch(/unsafe|\*/);
    expect(policy['script-src']!.join(' ')).not.toMatch(/data:|blob:/);
  });

  it("require Trusted Types for scripts, through the remote loader's policy and its default one only", () => {
    const policy = directives(shellSecurityHeaders(origins)['Content-Security-Policy']!);
    expect(policy['require-trusted-types-for']).toEqual(["'script'"]);
    expect(policy['trusted-types']).toEqual([REMOTE_LOADER_POLICY, 'default']);
    // Not 'allow-duplicates': a second policy of either name cannot be created.
    const filled = directives(serverHeaders(envsubst(shellTemplate, env))['Content-Security-Policy']!);
    expect(filled['trusted-types']).toEqual([REMOTE_LOADER_POLICY, 'default']);
  });

  it('allow dev servers (scripts and hot-update sockets) only where dev overrides are configured', () => {
    const withDev = directives(
      shellSecurityHeaders({ ...origins, devOverrideOrigins: ['http://localhost:*'] })[
        'Content-Security-Policy'
      ]!,
    );
    expect(withDev['script-src']).toEqual([
      "'self'",
      'https://releases.test',
      'https://cdn.test',
      'http://localhost:*',
    ]);
    expect(withDev['connect-src']).toEqual(
      expect.arrayContaining(['http://localhost:*', 'ws://localhost:*']),
    );
    const without = shellSecurityHeaders(origins)['Content-Security-Policy']!;
    expect(without).not.toContain('localhost');
  });

  it('allow sending spans to the traces URL, that URL alone, only when tracing is on', () => {
    const tracesUrl = 'https://otel.example.test/v1/traces';
    const traced = directives(shellSecurityHeaders({ ...origins, tracesUrl })['Content-Security-Policy']!);
    const untraced = directives(shellSecurityHeaders(origins)['Content-Security-Policy']!);
    expect(traced['connect-src']).toEqual([...untraced['connect-src']!, tracesUrl]);
    expect({ ...traced, 'connect-src': [] }).toEqual({ ...untraced, 'connect-src': [] });
    // In the container: the same policy, with ATRIUM_OTLP_TRACES_URL filled in.
    const filled = serverHeaders(envsubst(shellTemplate, { ...env, ATRIUM_OTLP_TRACES_URL: tracesUrl }));
    expect(directives(filled['Content-Security-Policy']!)['connect-src']).toContain(tracesUrl);
  });

  it('are the same in the nginx container as in the function (generated block up to date)', () => {
    expect(
      renderNginxConfig(shellTemplate, shellConfig.headers),
      'run node shell/app/deploy/security-headers.ts',
    ).toBe(shellTemplate);
    // An empty variable leaves a space before the next source list's end: the same policy.
    const tidy = (headers: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [
          name,
          value.replace(/ +(;|$)/g, '$1').replace(/ +/g, ' '),
        ]),
      );
    expect(tidy(serverHeaders(envsubst(shellTemplate, env)))).toEqual(tidy(shellSecurityHeaders(origins)));
  });

  it('are sent by the rspack dev server, for the origins of public/atrium.config.json', async () => {
    const { devServerHeaders } = await import('../rspack.config.ts');
    const runtime = JSON.parse(
      readFileSync(join(import.meta.dirname, '../public/atrium.config.json'), 'utf8'),
    ) as {
      apiBaseUrl: string;
      oidc: { authority: string };
    };
    expect(devServerHeaders).toEqual(
      shellSecurityHeaders({
        apiUrl: runtime.apiBaseUrl,
        authority: runtime.oidc.authority,
        remoteOrigins: (process.env.ATRIUM_REMOTE_ORIGINS ?? 'http://localhost:4100').split(/\s+/),
      }),
    );
    const config = (await import('../rspack.config.ts')).default as unknown as (
      env: object,
      argv: { mode: string },
    ) => { devServer: { headers: unknown } };
    expect(config({}, { mode: 'development' }).devServer.headers).toBe(devServerHeaders);
  });

  it('switch off the powerful features nothing in Atrium uses', () => {
    for (const feature of ['camera', 'microphone', 'geolocation', 'payment', 'usb']) {
      expect(PERMISSIONS_POLICY).toContain(`${feature}=()`);
    }
    expect(shellSecurityHeaders(origins)).toMatchObject({
      'X-Content-Type-Options': 'nosniff',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Permissions-Policy': PERMISSIONS_POLICY,
    });
  });
});

describe('the nginx configurations', () => {
  it('carry up-to-date generated blocks and add no header inside a location (it would drop the others)', () => {
    for (const { path, headers } of NGINX_CONFIGS) {
      const conf = readFileSync(path, 'utf8');
      expect(renderNginxConfig(conf, headers), path).toBe(conf);
      for (const [, where, body] of locations(conf))
        expect(body, `${path} location ${where}`).not.toMatch(/add_header/);
    }
    expect(serverHeaders(releaseStoreConf)).toMatchObject(releaseStoreSecurityHeaders());
  });

  it('send Strict-Transport-Security only for requests that came over TLS', () => {
    for (const { path } of NGINX_CONFIGS) {
      const conf = readFileSync(path, 'utf8');
      expect(conf).toMatch(/^ {2}add_header Strict-Transport-Security \$atrium_hsts always;$/m);
      const map = /map "\$scheme:\$http_x_forwarded_proto" \$atrium_hsts \{([^}]*)\}/.exec(conf)?.[1] ?? '';
      const entries = [...map.matchAll(/^\s*"?([^"\s]+)"? "([^"]*)";$/gm)].map(
        ([, key = '', value = '']): [string, string] => [key, value],
      );
      /** nginx map semantics for our entries: regex keys (~) tested in order, else the default. */
      const hsts = (scheme: string, forwarded: string) =>
        entries.find(
          ([key]) => key.startsWith('~') && new RegExp(key.slice(1)).test(`${scheme}:${forwarded}`),
        )?.[1] ?? entries.find(([key]) => key === 'default')?.[1];
      expect(hsts('http', '')).toBe('');
      expect(hsts('http', 'http')).toBe('');
      expect(hsts('https', '')).toMatch(/^max-age=\d{8,}; includeSubDomains$/);
      expect(hsts('http', 'https')).toMatch(/^max-age=\d{8,}/);
    }
  });

  it("send the builds' .br copy of every file type the build precompresses, with that type", () => {
    const block = (conf: string) =>
      /^# BEGIN precompressed copies.*?^# END precompressed copies$/ms.exec(conf)?.[0];
    // One definition of which copy a request gets, the same in both.
    expect(block(releaseStoreConf)).toBeDefined();
    expect(block(shellTemplate)).toBe(block(releaseStoreConf));
    for (const { path } of NGINX_CONFIGS) {
      const conf = readFileSync(path, 'utf8');
      for (const extension of COMPRESSIBLE_EXTENSIONS) {
        const location = locations(conf).find(([, where]) =>
          new RegExp((where ?? '').trim().replace(/^~\s*/, '')).test(`/x/file.${extension}`),
        );
        // The type the copy is sent with is the file's own: in the location's types, beside `br`.
        const body = conf.slice(location?.index, conf.indexOf('\n  }', location?.index));
        expect(body, `${path}: .${extension}`).toMatch(
          new RegExp(`types \\{ \\S+ (\\w+ )*${extension} (\\w+ )*br; \\}`),
        );
        expect(body, `${path}: .${extension}`).toMatch(/try_files \$uri\$atrium_br \$uri /);
      }
      expect(conf).toMatch(/^ {2}add_header Content-Encoding \$atrium_content_encoding;$/m);
      expect(conf).toMatch(/^ {2}add_header Vary \$atrium_vary always;$/m);
    }
  });

  it('make the release store serve no dotfile and follow no link out of its folder', () => {
    const [first] = locations(releaseStoreConf);
    expect(first?.[1]?.trim()).toBe('~ /\\.');
    expect(first?.[2]).toMatch(/return 404;/);
    expect(releaseStoreConf).toMatch(/^ {2}disable_symlinks on from=\$document_root;$/m);
    expect(releaseStoreConf).toMatch(/^ {2}autoindex off;$/m);
  });

  it('pass `nginx -t`', () => {
    const prefix = mkdtempSync(join(tmpdir(), 'atrium-nginx-t-'));
    try {
      const check = (conf: string) => {
        writeFileSync(join(prefix, 'server.conf'), conf);
        writeFileSync(
          join(prefix, 'nginx.conf'),
          `pid ${prefix}/nginx.pid;\nerror_log stderr;\nevents {}\nhttp {\n  access_log off;\n  client_body_temp_path ${prefix};\n  include ${prefix}/server.conf;\n}\n`,
        );
        const result = spawnSync('nginx', ['-t', '-p', prefix, '-c', join(prefix, 'nginx.conf')], {
          encoding: 'utf8',
        });
        if (result.error) {
          throw new Error(
            `nginx is needed for this check (apt-get install nginx-light): ${result.error.message}`,
          );
        }
        return result;
      };
      // The check has teeth: a directive nginx does not know is refused.
      expect(check(releaseStoreConf.replace('autoindex off;', 'autoindx off;')).status).not.toBe(0);
      for (const [name, conf] of [
        [
          'shell.conf',
          envsubst(shellTemplate, {
            ...env,
            ATRIUM_OIDC_CLIENT_ID: 'x',
            ATRIUM_REMOTES_URL: 'x',
            ATRIUM_REMOTE_TIMEOUT_MS: '1',
          }),
        ],
        ['release-store.conf', releaseStoreConf],
      ] as const) {
        const result = check(conf);
        expect(result.status, `${name}: ${result.stderr}`).toBe(0);
      }
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  });
});
