// React 18+ has useSyncExternalStore built in. wouter still imports the shim for older React
// (use-sync-external-store/shim), which then only hands React's own back: rspack.config.ts points that import
// here, so the shell's first load does not carry the shim's dead code.
export { useSyncExternalStore } from 'react';
