import type { StatsCompilation } from '@rspack/core';

/* Which of the shell build's chunks are which, read from rspack's stats (chunks with their origins). */

export type StatsChunk = NonNullable<StatsCompilation['chunks']>[number];

/** The async boundary of the shell's entry (shell/app/src/index.ts): everything the shell runs is behind it. */
const BOOTSTRAP_REQUEST = './bootstrap';
/** The telemetry chunk, as field-telemetry-entry.ts imports it. */
export const TELEMETRY_CHUNK_REQUEST = './field-telemetry';

/**
 * The chunks a browser loads before the first remote: the entry, the chunks of its import of the bootstrap,
 * and those of the shared modules the shell provides (React, react-dom, the sdk: the shell consumes its own
 * copies; a consumer's fallback copy never loads). A chunk only an `import()` in the shell's code reaches
 * (telemetry, dev overrides, account actions, the typed API client) loads later, when something asks for it.
 */
export function initialChunks(chunks: readonly StatsChunk[]): StatsChunk[] {
  return chunks.filter(
    (chunk) =>
      chunk.entry ||
      (chunk.origins ?? []).some(
        (origin) =>
          origin.request === BOOTSTRAP_REQUEST || origin.moduleName.startsWith('provide shared module'),
      ),
  );
}

/** The chunks the telemetry entry point's import reaches. */
export function telemetryChunks(chunks: readonly StatsChunk[]): StatsChunk[] {
  return chunks.filter((chunk) =>
    (chunk.origins ?? []).some((origin) => origin.request === TELEMETRY_CHUNK_REQUEST),
  );
}
