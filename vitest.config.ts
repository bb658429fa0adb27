import { defineConfig } from 'vitest/config';

/**
 * Three test tiers (see docs/architecture.md#tests):
 * - unit: `*.spec.ts(x)` beside the code, no network;
 * - integration: `*.int-spec.ts` against a real Keycloak and a real PostgreSQL;
 * - e2e: Playwright journeys under e2e/ (not run by vitest).
 */
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['{shell,remotes,services,tools,infra}/**/*.spec.{ts,tsx}'],
          exclude: ['**/node_modules/**', '**/dist/**'],
          setupFiles: ['infra/testing/unit-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['{shell,remotes,services,tools,infra}/**/*.int-spec.{ts,tsx}'],
          exclude: ['**/node_modules/**', '**/dist/**'],
          globalSetup: ['infra/testing/integration-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
