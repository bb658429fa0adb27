// The feature the harness build imports from a lazy chunk of its own: an alias the build points at the remote's
// `./Feature` source (./build.ts).
declare module 'atrium-bench-local-feature' {
  export const Feature: (props: { basePath: string }) => unknown;
}
