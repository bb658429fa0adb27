import { describe, expect, it } from 'vitest';
import { initialChunks, telemetryChunks, type StatsChunk } from './shell-chunks.ts';

/** A chunk as rspack's stats describe it, with the modules and requests that load it. */
const chunk = (id: string, origins: { moduleName: string; request: string }[], entry = false) =>
  ({ id, entry, initial: entry, files: [`${id}.js`], origins }) as unknown as StatsChunk;

// The shape of the shell's build: the entry, its async boundary, the shared modules it provides and consumes,
// and chunks that only an import() in the shell's code reaches.
const chunks = [
  chunk('main', [{ moduleName: '', request: './src/index.ts' }], true),
  chunk('shell', [{ moduleName: './src/index.ts', request: './bootstrap' }]),
  chunk('vendors', [
    { moduleName: 'provide shared module (default) react@19.3.1 = react/index.js', request: '' },
    { moduleName: './src/index.ts', request: './bootstrap' },
  ]),
  chunk('sdk', [{ moduleName: 'provide shared module (default) @atrium/sdk@0.1.0 = sdk', request: '' }]),
  chunk('sdk-fallback', [{ moduleName: 'consume shared module (default) @atrium/sdk@^0.1.0', request: '' }]),
  chunk('telemetry', [
    { moduleName: './src/remote-loading/field-telemetry-entry.ts', request: './field-telemetry' },
  ]),
  chunk('dev-override', [
    { moduleName: './src/app/signed-in-shell.tsx', request: '../dev-override/dev-override-panel' },
  ]),
];

describe('the chunks of the shell build', () => {
  it('counts as initial the entry, its bootstrap and the shared modules the shell provides', () => {
    expect(initialChunks(chunks).map(({ id }) => id)).toEqual(['main', 'shell', 'vendors', 'sdk']);
  });

  it('finds the chunk the telemetry entry point imports, and nothing else', () => {
    expect(telemetryChunks(chunks).map(({ id }) => id)).toEqual(['telemetry']);
  });
});
