// Atrium's login theme (infra/keycloak/themes/atrium): its files are complete and consistent, the realm uses it,
// its colours are the shell's, and `npm start`'s Keycloak home links it where Keycloak looks for themes. The
// container stacks' wiring is checked with the rest of each stack: infra/checks/compose.spec.ts (the bind
// mount) and infra/checks/k8s.spec.ts (the ConfigMap volume). The browser journeys check the rendered pages.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ATRIUM_THEMES_DIR, linkThemes } from './keycloak.ts';
import { ATRIUM_REALM_FILE } from './realm-file.ts';
import { repoRoot as root } from '../lib/paths.ts';

const login = join(ATRIUM_THEMES_DIR, 'atrium', 'login');

/** A Java .properties file's key=value lines (comments and blank lines left out). */
function properties(file: string): Map<string, string> {
  return new Map(
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'))
      .map((line): [string, string] => {
        const at = line.indexOf('=');
        return [line.slice(0, at).trim(), line.slice(at + 1).trim()];
      }),
  );
}

/** The `--atrium-*` custom properties declared in a stylesheet's first rule for `selector`. */
function tokens(css: string, selector: RegExp): Map<string, string> {
  const body = new RegExp(`${selector.source}\\s*\\{([^}]*)\\}`).exec(css)?.[1] ?? '';
  return new Map(
    [...body.matchAll(/(--atrium-[\w-]+)\s*:\s*([^;]+);/g)].map((match): [string, string] => [
      match[1]!,
      match[2]!.replace(/\s+/g, ' ').trim(),
    ]),
  );
}

describe('the atrium login theme', () => {
  const theme = properties(join(login, 'theme.properties'));

  it("extends Keycloak's PatternFly 5 login theme and adds its stylesheet after the parent's", () => {
    expect(theme.get('parent')).toBe('keycloak.v2');
    // The parent's own stylesheet stays first: a theme's `styles` replaces its parent's list.
    expect(theme.get('styles')?.split(/\s+/)).toEqual(['css/styles.css', 'css/atrium.css']);
    expect(theme.get('kcBodyClass')).toBe('atrium-login');
  });

  it('ships every resource its properties and stylesheet name', () => {
    const resources = join(login, 'resources');
    expect(existsSync(join(resources, 'css', 'atrium.css'))).toBe(true);
    const favicons = [...theme].filter(([key]) => /^favicons\.[^.]+$/.test(key)).map(([, path]) => path);
    expect(favicons).toEqual(['img/atrium-logo.svg']);
    const css = readFileSync(join(resources, 'css', 'atrium.css'), 'utf8');
    const urls = [...css.matchAll(/url\('([^']+)'\)/g)].map((match) => match[1]!);
    expect(urls).toContain('../img/atrium-logo.svg');
    for (const path of [...favicons, ...urls.map((url) => join('css', url))]) {
      expect(existsSync(join(resources, path)), path).toBe(true);
    }
    // The stylesheet's rules apply to this theme's pages only.
    expect(css).toMatch(/body\.atrium-login\s*\{/);
  });

  it("uses the shell's colour tokens, value for value", () => {
    const shell = tokens(readFileSync(join(root, 'shell/app/src/styles.css'), 'utf8'), /:root/);
    const login = tokens(
      readFileSync(join(ATRIUM_THEMES_DIR, 'atrium/login/resources/css/atrium.css'), 'utf8'),
      /body\.atrium-login/,
    );
    expect(shell.size).toBeGreaterThan(5);
    expect(Object.fromEntries(login)).toEqual(Object.fromEntries(shell));
  });

  it("names each field of the templates it overrides: Keycloak's labels there name no element", () => {
    // The authenticator-app set-up: each <label for> names an input of the page.
    const totp = readFileSync(join(login, 'login-config-totp.ftl'), 'utf8');
    const labelled = [...totp.matchAll(/<label[^>]*\bfor="([^"]+)"/g)].map((match) => match[1]);
    expect(labelled).toEqual(['totp', 'userLabel']);
    for (const id of labelled) expect(totp).toMatch(new RegExp(`<input[^>]*\\bid="${id}"`));
    // The user name shown read-only when a page asks for the password again has a name of its own.
    const layout = readFileSync(join(login, 'template.ftl'), 'utf8');
    expect(layout).toMatch(
      /<input id="kc-attempted-username"[^>]*\baria-label="\$\{label\?markup_string\?trim\}"/,
    );
  });

  it('names Atrium on the sign-in page', () => {
    const messages = properties(join(login, 'messages', 'messages_en.properties'));
    expect(messages.get('loginAccountTitle')).toBe('Sign in to Atrium');
    // The last page a person sees after deleting their account there.
    expect(messages.get('userDeletedSuccessfully')).toBe('Your Atrium account has been deleted.');
  });

  it('is the login and email theme of the atrium realm', () => {
    const realm = JSON.parse(readFileSync(ATRIUM_REALM_FILE, 'utf8')) as {
      loginTheme?: string;
      emailTheme?: string;
    };
    expect(realm.loginTheme).toBe('atrium');
    expect(existsSync(join(ATRIUM_THEMES_DIR, realm.loginTheme!, 'login', 'theme.properties'))).toBe(true);
    expect(realm.emailTheme).toBe('atrium');
    expect(existsSync(join(ATRIUM_THEMES_DIR, realm.emailTheme!, 'email', 'theme.properties'))).toBe(true);
  });
});

describe('the atrium email theme', () => {
  const email = join(ATRIUM_THEMES_DIR, 'atrium', 'email');

  it("keeps Keycloak's mails and frames their HTML with the realm's name", () => {
    expect(properties(join(email, 'theme.properties')).get('parent')).toBe('keycloak');
    const layout = readFileSync(join(email, 'html', 'template.ftl'), 'utf8');
    // The macro every HTML mail of base calls, with the mail's own text nested inside.
    expect(layout).toMatch(/<#macro emailLayout>[\s\S]*<#nested>[\s\S]*<\/#macro>/);
    expect(layout).toContain('${realmName}');
  });

  it("colours them only with the shell's light tokens (mail clients know no custom properties)", () => {
    const shell = tokens(readFileSync(join(root, 'shell/app/src/styles.css'), 'utf8'), /:root/);
    const light = new Set(
      [...shell.values()].flatMap((value) => /^light-dark\((#[0-9a-f]{6}),/i.exec(value)?.[1] ?? []),
    );
    const used = readFileSync(join(email, 'html', 'template.ftl'), 'utf8').match(/#[0-9a-f]{6}\b/gi) ?? [];
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((colour) => !light.has(colour.toLowerCase()))).toEqual([]);
  });
});

describe("npm start's Keycloak home", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const home = () => {
    const dir = mkdtempSync(join(tmpdir(), 'atrium-theme-home-'));
    made.push(dir);
    return dir;
  };

  it('links each project theme into themes/, where Keycloak looks for them', () => {
    const dataDir = home();
    linkThemes(dataDir);
    const link = join(dataDir, 'themes', 'atrium');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(join(ATRIUM_THEMES_DIR, 'atrium'));
    expect(readFileSync(join(link, 'login', 'theme.properties'), 'utf8')).toContain('parent=keycloak.v2');
    // Only theme folders: the kustomization beside them is no theme.
    expect(existsSync(join(dataDir, 'themes', 'kustomization.yaml'))).toBe(false);
  });

  it('replaces the link to the whole distribution folder that earlier homes had, leaving its target alone', () => {
    const dataDir = home();
    const distThemes = join(home(), 'themes');
    mkdirSync(distThemes);
    symlinkSync(distThemes, join(dataDir, 'themes'));
    linkThemes(dataDir);
    linkThemes(dataDir);
    expect(lstatSync(join(dataDir, 'themes')).isDirectory()).toBe(true);
    expect(lstatSync(join(dataDir, 'themes', 'atrium')).isSymbolicLink()).toBe(true);
    expect(existsSync(distThemes)).toBe(true);
    // Removing the home's links never reaches into the project's theme.
    rmSync(join(dataDir, 'themes'), { recursive: true });
    expect(existsSync(join(login, 'theme.properties'))).toBe(true);
  });
});
