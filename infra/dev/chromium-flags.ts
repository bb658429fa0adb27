/**
 * The flags the machine's Chromium runs with wherever the project drives it (the browser journeys and
 * `npm run bench:shell`): no sandbox (root in CI), no GPU, no QUIC, and none of the background traffic of a
 * first run, so a test or a measurement sees only the page's own requests.
 */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;
