import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listRemotePackages } from '@atrium/release-cli/publish-release';
import { repoRoot } from '../lib/paths.ts';
import { devServerOrigins } from './stack.ts';

/** The ports of the stack's own servers: API, shell, release store, Keycloak (and its management), mail. */
const STACK_PORTS = [3000, 4000, 4100, 8080, 9000, 1080, 1025];

describe('the dev servers the local stack allows', () => {
  it("are each remote's own dev server on localhost, and no port of the stack's own servers", () => {
    const remotes = listRemotePackages(repoRoot);
    const origins = devServerOrigins(remotes.map((remote) => remote.dir));
    expect(origins.length).toBe(remotes.length);
    for (const origin of origins) {
      expect(origin).toMatch(/^http:\/\/localhost:\d+$/);
      expect(STACK_PORTS).not.toContain(Number(new URL(origin).port));
    }
    expect(origins).toContain('http://localhost:5001');
  });

  it('refuse a remote that names no dev server port, rather than allowing more', () => {
    const dir = mkdtempSync(join(tmpdir(), 'atrium-remote-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ atrium: { devPort: '*' } }));
      expect(() => devServerOrigins([dir])).toThrow(/names no dev server port/);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
