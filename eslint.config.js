// @ts-check
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * Dependency direction (docs/architecture.md):
 *   remotes/*  -> @atrium/sdk only (never the shell app, never another remote)
 *   shell/app  -> @atrium/sdk (remotes are loaded at run time, never imported)
 *   shell/sdk  -> nothing of ours (it is the contract everyone else depends on)
 *   services/* -> never front-end code
 *   infra/, e2e/ (tooling) -> app and API code only through package exports, never a path into a package
 *   tools/test-support -> no app or API code at all (it drives Atrium from outside); the dev stack never imports it
 * Each rule lists both the package names and relative paths that would reach into another package.
 */
const boundary = (message, ...groups) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: groups, message }] }],
});

/**
 * Tooling (infra/) and e2e/: app and API code only through package exports, never a relative path into
 * shell/, services/ or remotes/; `more` adds a pattern of the folder's own.
 */
const toolingBoundary = (...more) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          regex: '^(\\.{1,2}/)+([^@]*/)?(shell|services|remotes)/',
          message:
            "Tooling and e2e/ take app and API code only through the package's exports (package.json), never by path.",
        },
        ...more,
      ],
    },
  ],
});

/** What the sdk may never import: the shell, remotes, services, an identity provider. */
const SDK_FORBIDDEN = [
  '@atrium/shell',
  '@atrium/remote-*',
  '@atrium/api',
  'oidc-client-ts',
  'react-oidc-context',
  '**/shell/app/**',
  '**/remotes/**',
  '**/services/**',
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.data/**',
      'test-results/**',
      'playwright-report/**',
      'services/api/src/database/migrations/**',
      // Release types pulled by `npm run types -- pull` (git-ignored).
      'types/**',
      // Written by `npm run contract` (npm test checks it is current).
      'shell/sdk/src/generated/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      // Named exports only (docs/style.md §3).
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use a named export (docs/style.md §3).' },
        {
          selector: 'ExportSpecifier[exported.name="default"]',
          message: 'Use a named export (docs/style.md §3).',
        },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    files: ['{shell,remotes}/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    files: ['remotes/*/**/*.{ts,tsx}'],
    rules: boundary(
      'A remote may import only @atrium/sdk: never the shell app or another remote (docs/style.md §2).',
      '@atrium/shell',
      '@atrium/shell/*',
      '@atrium/remote-*',
      '**/shell/app/**',
      '**/remotes/**',
      '**/services/**',
      '**/shell/sdk/src/**',
      // For Node tools: its error classes would be a second copy of the shared singleton's.
      '@atrium/sdk/transport',
    ),
  },
  {
    files: ['shell/app/**/*.{ts,tsx}'],
    rules: boundary(
      'The shell loads remotes at run time through Module Federation; it never imports them or the API source.',
      '@atrium/remote-*',
      '@atrium/api',
      '**/remotes/**',
      '**/services/**',
      '**/shell/sdk/src/**',
      '@atrium/sdk/transport',
    ),
  },
  {
    files: ['shell/sdk/**/*.{ts,tsx}'],
    rules: boundary(
      'The sdk is the contract: it must not depend on the shell, remotes, services or an identity provider.',
      ...SDK_FORBIDDEN,
    ),
  },
  {
    // `@atrium/sdk/ui` and `/testing` are bundled into each remote, while the core is a shared singleton: a
    // relative import of the core would give a remote a second copy of the context and of the error classes.
    files: ['shell/sdk/src/{ui,testing}/**/*.{ts,tsx}'],
    rules: boundary(
      "Reach the sdk's core through '@atrium/sdk' (the shared singleton), never by relative path; the sdk depends on nothing else of ours.",
      '../*',
      ...SDK_FORBIDDEN,
    ),
  },
  {
    files: ['services/**/*.ts'],
    rules: boundary(
      'Services never import front-end code.',
      '@atrium/sdk',
      '@atrium/shell',
      '@atrium/remote-*',
      'react',
      'react-dom',
      '**/shell/**',
      '**/remotes/**',
    ),
  },
  {
    // Tooling and the browser journeys use app and API code as any consumer does: through the package's exports
    // (`@atrium/sdk/remote-rules`, `@atrium/shell/security-headers`, `@atrium/api/testing`...), so moving a file
    // inside a package breaks no tool.
    files: ['infra/**/*.ts', 'e2e/**/*.ts', '*.config.ts'],
    ignores: ['infra/dev/**', 'infra/lib/**'],
    rules: toolingBoundary(),
  },
  {
    files: ['infra/dev/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.int-spec.ts'],
    rules: toolingBoundary({
      group: ['**/testing/*', '@atrium/test-support', '@atrium/test-support/*'],
      message: 'The dev stack never imports test support (the tests use the stack, not the other way).',
    }),
  },
  {
    files: ['infra/dev/**/*.{spec,int-spec}.ts'],
    rules: toolingBoundary(),
  },
  {
    files: ['tools/test-support/**/*.ts'],
    rules: boundary(
      'Test support drives Atrium from outside, as any client does: no app or API code (what builds the API ' +
        'in-process is @atrium/api/testing), and infra only through @atrium/infra-lib.',
      '@atrium/api',
      '@atrium/api/*',
      '@atrium/shell',
      '@atrium/shell/*',
      '@atrium/sdk',
      '@atrium/sdk/*',
      '@atrium/remote-*',
      '**/services/**',
      '**/shell/**',
      '**/remotes/**',
      '**/infra/**',
      '**/e2e/**',
    ),
  },
  {
    files: ['infra/lib/**/*.ts'],
    rules: toolingBoundary({
      regex: '^\\.\\./',
      message:
        "infra/lib is the stack's helper library: it imports nothing of infra's, so everything can use it.",
    }),
  },
  {
    // Tools load these by default export.
    files: ['**/*.config.{ts,js,mjs}', '**/rspack.config.ts', 'eslint.config.js', 'e2e/global-setup.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
