import { defineRemoteConfig } from '@atrium/sdk/build';

// Everything a remote shares with the others (Module Federation, shared singletons, integrity, output) lives in
// defineRemoteConfig; the container name is `atrium.remote` and the dev
// server's port `atrium.devPort` from package.json.
export default defineRemoteConfig({
  dir: import.meta.dirname,
  exposes: { './Feature': './src/feature.tsx' },
});
