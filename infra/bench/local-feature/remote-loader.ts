// The harness build's stand-in for the shell's remote-loading/loader/remote-loader.ts (./build.ts puts it in that
// module's place for every importer): the one feature of the build is imported from a lazy chunk of the shell's
// own build, as a shell with that feature compiled in would load its route. The slot around it (RemoteSlot: its
// loading state, error boundary and performance marks) is the shell's own. Nothing is registered with the
// federation runtime: no remote is loaded at run time.
import { LOCAL_REMOTE } from './local-remote.ts';

interface Listed {
  readonly name: string;
  readonly title: string;
}

export function createRemoteLoader() {
  return {
    warm(): void {},
    adopt(): void {},
    loadFeature(remote: Listed): Promise<unknown> {
      if (remote.name !== LOCAL_REMOTE.name) {
        return Promise.reject(new Error(`${remote.title} is not part of this build.`));
      }
      return import('atrium-bench-local-feature');
    },
  };
}
