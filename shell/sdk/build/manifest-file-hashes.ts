import { createHash } from 'node:crypto';
import type { Compilation, Compiler, RspackPluginInstance } from '@rspack/core';
import { exposedFiles, MANIFEST_FILE_HASHES } from '../src/remote-entry.ts';

/** The Module Federation manifest a remote's build writes, which the release's `manifestIntegrity` pins. */
export const MANIFEST_FILE = 'mf-manifest.json';

/** The W3C Subresource Integrity hash of `bytes` the browser checks: `sha384-<base64>`. */
export const sriHash = (bytes: Buffer): string =>
  `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

/**
 * Records in `mf-manifest.json` ({@link MANIFEST_FILE_HASHES}) the SRI hash of every file the manifest lists for
 * the remote's exposed module, computed from the bytes the build writes. The shell checks the manifest against the
 * registry before it reads anything in it, so it can load the Feature's chunk with its hash alongside
 * `remoteEntry.js` instead of after it. Runs once the manifest is written (Module Federation writes it in the
 * `OPTIMIZE_TRANSFER` stage) and the files are final, before {@link PrecompressPlugin} compresses them.
 * A listed file the build did not write fails the build.
 */
export class ManifestFileHashesPlugin implements RspackPluginInstance {
  apply(compiler: Compiler): void {
    const { Compilation: Stages, sources, WebpackError } = compiler.rspack;
    compiler.hooks.thisCompilation.tap('AtriumManifestFileHashes', (compilation: Compilation) => {
      compilation.hooks.processAssets.tap(
        { name: 'AtriumManifestFileHashes', stage: Stages.PROCESS_ASSETS_STAGE_ANALYSE },
        () => {
          const written = compilation.getAsset(MANIFEST_FILE);
          if (written === undefined) {
            compilation.errors.push(
              new WebpackError(`${MANIFEST_FILE} was not written: nothing to record hashes in`),
            );
            return;
          }
          const manifest = JSON.parse(written.source.source().toString()) as Record<string, unknown>;
          const hashes: Record<string, string> = {};
          for (const file of exposedFiles(manifest)) {
            const asset = compilation.getAsset(file);
            if (asset === undefined) {
              compilation.errors.push(
                new WebpackError(`${MANIFEST_FILE} lists ${file}, which the build did not write`),
              );
              continue;
            }
            hashes[file] = sriHash(asset.source.buffer());
          }
          compilation.updateAsset(
            MANIFEST_FILE,
            new sources.RawSource(JSON.stringify({ ...manifest, [MANIFEST_FILE_HASHES]: hashes }, null, 2)),
          );
        },
      );
    });
  }
}
