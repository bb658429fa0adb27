// Hashes of releases made up for tests, as the release CLI would compute them of stored files.
import { createHash } from 'node:crypto';

/** The SRI sha384 value of some bytes, as the release CLI computes it of a stored file. */
export function sri(content: string | Uint8Array): string {
  return `sha384-${createHash('sha384').update(content).digest('base64')}`;
}

/**
 * The two hashes a publish must carry, made up for tests from the remote and version so every version has
 * its own: `integrity` (remoteEntry.js) and `manifestIntegrity` (mf-manifest.json).
 */
export function releaseHashes(
  remote: string,
  version: string,
): { integrity: string; manifestIntegrity: string } {
  return {
    integrity: sri(`remoteEntry.js of ${remote} ${version}`),
    manifestIntegrity: sri(`mf-manifest.json of ${remote} ${version}`),
  };
}
