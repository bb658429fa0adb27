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
  expect: { timeout: 15_000 },
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
