import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUDGETS, remoteEntries, shellInitialJs } from './bundle-sizes.ts';

// Reads the production builds: `npm test` builds before the unit tier; alone, run `npm run build` first.
const root = resolve(import.meta.dirname, '../..');
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

describe('size budgets (gzip)', () => {
  it(`keeps the shell's initial JavaScript within ${kb(BUDGETS.shellInitialJs)}`, () => {
    const { files, total } = shellInitialJs(join(root, 'shell/app/dist'));
    const breakdown = files.map(({ file, gzip }) => `${file} ${kb(gzip)}`).join(', ');
    console.log(`shell initial JS: ${kb(total)} (${breakdown})`);
    expect(total, `shell initial JS is ${kb(total)}: ${breakdown}`).toBeLessThanOrEqual(
      BUDGETS.shellInitialJs,
    );
  });

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
