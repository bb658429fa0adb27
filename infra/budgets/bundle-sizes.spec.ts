import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUDGETS, remoteEntries } from './bundle-sizes.ts';
import { repoRoot as root } from '../lib/paths.ts';

// Reads the production builds: `npm test` builds before the unit tier; alone, run `npm run build` first.
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

describe('size budgets (gzip)', () => {
  const remotes = remoteEntries(join(root, 'remotes'));
  it('finds at least one remote', () => {
    expect(remotes.length).toBeGreaterThan(0);
  });

  it.each(remotes)(`keeps $remote's remoteEntry.js within ${kb(BUDGETS.remoteEntryJs)}`, ({ file, gzip }) => {
    expect(gzip, `${file} is missing: run \`npm run build\` before the size check`).not.toBeNull();
    console.log(`${file}: ${kb(gzip!)}`);
    expect(gzip!).toBeLessThanOrEqual(BUDGETS.remoteEntryJs);
  });
});
