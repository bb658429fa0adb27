import { expect } from 'vitest';
import { releaseHashes } from '@atrium/test-support/releases';
import type { TestApp } from './create-test-app.js';

/**
 * Registers a remote through the API as the realm's clients do it: the platform's client creates it (an
 * administrator's act), its owner, atrium-deployer, publishes `versions` (release-store URLs, hashes of the
 * right shape) and activates `active`. For int-specs that need a remote with releases to act on.
 */
export async function registerRemote(
  api: TestApp,
  options: {
    readonly name: string;
    readonly title: string;
    /** The platform client's token (creates the remote). */
    readonly platform: string;
    /** atrium-deployer's token (publishes as the owner). */
    readonly deployer: string;
    readonly versions: readonly string[];
    readonly active: string;
  },
): Promise<void> {
  const { name, title, platform, deployer, versions, active } = options;
  const created = await api.request({
    method: 'POST',
    url: '/api/remotes',
    token: platform,
    body: { name, title, path: `/${name}`, owner: 'atrium-deployer' },
  });
  expect(created.statusCode, created.body).toBe(201);
  for (const version of versions) {
    const published = await api.request({
      method: 'POST',
      url: `/api/remotes/${name}/versions`,
      token: deployer,
      body: {
        version,
        manifestUrl: `http://localhost:4100/${name}/${version}/mf-manifest.json`,
        ...releaseHashes(name, version),
        activate: version === active,
      },
    });
    expect(published.statusCode, published.body).toBe(201);
  }
}
