// The one feature of the harness build, as the registry would list it (name, title, route), defined by
// ./build.ts from the remote's package.json.
export interface LocalRemote {
  readonly name: string;
  readonly title: string;
  readonly path: string;
  readonly navOrder: number;
  readonly version: string;
  readonly entry: string;
  readonly integrity: string;
  readonly manifestIntegrity: string;
}

declare const __ATRIUM_BENCH_LOCAL_REMOTE__: LocalRemote;

export const LOCAL_REMOTE: LocalRemote = __ATRIUM_BENCH_LOCAL_REMOTE__;
