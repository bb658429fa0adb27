import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Compiler, RspackPluginInstance } from '@rspack/core';

const toBrotli = promisify(brotliCompress);
const toGzip = promisify(gzip);

/**
 * The extensions of files worth compressing: text. Images and fonts are compressed already. The servers' nginx
 * configurations send the `.br` copies of exactly these (shell/app/deploy/security-headers.spec.ts checks).
 */
export const COMPRESSIBLE_EXTENSIONS = ['js', 'mjs', 'css', 'html', 'json', 'svg', 'txt', 'map'] as const;
const COMPRESSIBLE = new RegExp(`\\.(${COMPRESSIBLE_EXTENSIONS.join('|')})$`);
/** Below this size the headers of a compressed answer cost about what compression saves. */
const MIN_BYTES = 256;

/**
 * Writes `<file>.br` and `<file>.gz` next to every text file of a production build, at the strongest levels,
 * once at build time instead of on every request. The servers pick one by the request's `Accept-Encoding`
 * (sirv's `brotli`/`gzip` options; nginx's `try_files` and `gzip_static`, see its configurations). Browsers decompress before they
 * check a script's integrity, so the SRI hashes stay those of the uncompressed files. Runs after every other
 * plugin has written its files (the Module Federation manifest included), in rspack's last asset stage.
 */
export class PrecompressPlugin implements RspackPluginInstance {
  apply(compiler: Compiler): void {
    const { Compilation, sources } = compiler.rspack;
    compiler.hooks.thisCompilation.tap('AtriumPrecompress', (compilation) => {
      compilation.hooks.processAssets.tapPromise(
        { name: 'AtriumPrecompress', stage: Compilation.PROCESS_ASSETS_STAGE_REPORT },
        async () => {
          const compressible = compilation
            .getAssets()
            .filter(({ name, source }) => COMPRESSIBLE.test(name) && source.size() >= MIN_BYTES);
          await Promise.all(
            compressible.map(async ({ name, source }) => {
              const bytes = source.buffer();
              const [brotli, gzipped] = await Promise.all([
                toBrotli(bytes, {
                  params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
                }),
                toGzip(bytes, { level: constants.Z_BEST_COMPRESSION }),
              ]);
              compilation.emitAsset(`${name}.br`, new sources.RawSource(brotli));
              compilation.emitAsset(`${name}.gz`, new sources.RawSource(gzipped));
            }),
          );
        },
      );
    });
  }
}
