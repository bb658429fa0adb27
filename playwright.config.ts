import { defineConfig } from '@playwright/test';
import { CHROMIUM_FLAGS } from './infra/dev/chromium-flags.ts';

/**
 * Browser journeys through the real stack (Keycloak, API on PostgreSQL, shell, release store) in the
 * machine's Chromium: Playwright never downloads a browser of its own.
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.e2e.ts',
  globalSetup: './e2e/global-setup.ts',
  workers: 1,
  retries: 0,
  timeout: 90_000,
  expect: {
    timeout: 15_000,
    // e2e/screens.e2e.ts's pictures: still (no animation, no caret), and equal to their baseline but for a few
    // pixels of anti-aliasing and font hinting (a changed screen differs in far more).
    toHaveScreenshot: {
      animations: 'disabled',
      caret: 'hide',
      scale: 'css',
      maxDiffPixelRatio: 0.002,
      threshold: 0.2,
    },
  },
  // Baselines beside the tests, committed: e2e/screenshots/<test file>/<name>.png, one set for Linux Chromium.
  snapshotPathTemplate: '{testDir}/screenshots/{testFileName}/{arg}{ext}',
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e.json' }]],
  use: {
    baseURL: 'http://localhost:4000',
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [...CHROMIUM_FLAGS],
    },
  },
});
