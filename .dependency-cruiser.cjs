// Dependency rules a tool checks (`npm run lint`: `depcruise`), beside the package boundaries eslint.config.js
// enforces. Type-only imports count: a type that runs back up ties the modules together all the same.
//
// The shell app is layered (docs/architecture.md, "Dependency direction"):
//   entry (src/index.ts, src/bootstrap.tsx)   starts the page: creates the remote loader and catalogue, renders app/
//   app/                                       composes the features and subscribes to them
//   pages/                                     the shell's own screens
//   remote-loading/, dev-override/             the features; neither knows the other (the catalogue takes the
//                                              dev overrides as a function app/ hands it)
//   auth/, tracing/                            the session every feature works in
//   layout/, config/                           shared, know nothing above them
// Each rule below forbids one way back up. Tests may compose features as app/ does (a dev-override spec builds
// the registry's list with the loader's test remotes), so the feature-to-feature rules leave `*.spec.*` out.

const SHELL = '^shell/app/src/';
const SPEC = '\\.spec\\.tsx?$';

// The API (services/api/src, docs/architecture.md) is modules in layers, each building only on those below it;
// the files at the top (app.module.ts, create-app.ts, main.ts, entities.ts...) compose them. common/ is a kit
// of small public files, not a module. Specs may boot the whole app as the top files do, so the layer rules
// leave them out; they too import another module only through its index.ts.
const API = '^services/api/src/';
const API_LAYERS = [
  ['config', 'metrics'],
  ['common', 'tracing'],
  ['database', 'auth'],
  ['audit'],
  ['registry', 'account', 'health'],
  ['rollout', 'me', 'dev-overrides'],
  ['telemetry'],
];
const API_SPEC = '\\.(int-)?spec\\.ts$';
const API_MODULES = API_LAYERS.flat().filter((name) => name !== 'common');
/** Dependency-free files `npm run contract` copies into the sdk: the wire's rules, below every layer. */
const API_WIRE_RULES = `${API}(registry/remote-rules|telemetry/telemetry-rules|dev-overrides/dev-override-rules|auth/role-names)\\.ts$`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'shell-no-circular',
      severity: 'error',
      comment:
        'Modules in a cycle can only be understood, loaded and tested together; the remote-loading races came ' +
        'from such a tangle. Split out what both sides need, or pass it in.',
      from: { path: '^shell/' },
      to: { circular: true },
    },
    {
      name: 'shell-app-composes-nothing-imports-it',
      severity: 'error',
      comment:
        'app/ puts the features together; a feature reaching back into it makes the composition part of what ' +
        'it composes (issue 23: the remotes list lived half in app/, half in remote-loading/). Hand the feature ' +
        'what it needs instead.',
      from: { path: SHELL, pathNot: `${SHELL}(app/|index\\.ts$|bootstrap\\.tsx$)` },
      to: { path: `${SHELL}app/` },
    },
    {
      name: 'shell-entry-imports-nothing-back',
      severity: 'error',
      comment:
        'src/index.ts installs the Trusted Types policies before any chunk loads and src/bootstrap.tsx starts ' +
        'the shell behind the federation async boundary: importing either runs the page start again.',
      from: { path: SHELL, pathNot: `${SHELL}index\\.ts$` },
      to: { path: `${SHELL}(index\\.ts|bootstrap\\.tsx)$` },
    },
    {
      name: 'shell-pages-only-for-app',
      severity: 'error',
      comment: 'The pages are screens app/ routes to; features and the session below them render none.',
      from: { path: `${SHELL}(remote-loading|dev-override|auth|tracing|layout|config)/` },
      to: { path: `${SHELL}pages/` },
    },
    {
      name: 'shell-remote-loading-knows-no-dev-override',
      severity: 'error',
      comment:
        'Dev overrides are a chunk the shell loads only for a tab that has one; the catalogue gets their ' +
        'effect as a function from app/, so nothing of them is in the first bundle or decides what loads.',
      from: { path: `${SHELL}remote-loading/`, pathNot: SPEC },
      to: { path: `${SHELL}dev-override/` },
    },
    {
      name: 'shell-dev-override-writes-no-loader-state',
      severity: 'error',
      comment:
        'The remote loader is the one owner of what may load (verified releases, trusted script URLs): a dev ' +
        'override hands it the dev servers it approved, through the catalogue, and never writes its state.',
      from: { path: `${SHELL}dev-override/`, pathNot: SPEC },
      to: { path: `${SHELL}remote-loading/` },
    },
    {
      name: 'shell-session-below-features',
      severity: 'error',
      comment: 'auth/ and tracing/ are the session every feature works in; they know no feature.',
      from: { path: `${SHELL}(auth|tracing)/` },
      to: { path: `${SHELL}(remote-loading|dev-override)/` },
    },
    {
      name: 'shell-shared-at-the-bottom',
      severity: 'error',
      comment: 'layout/ and config/ are used by everything above them and know nothing of it.',
      from: { path: `${SHELL}(layout|config)/` },
      to: { path: `${SHELL}(app|pages|remote-loading|dev-override|auth|tracing)/` },
    },
    {
      name: 'shell-loader-below-catalogue',
      severity: 'error',
      comment:
        'The catalogue decides which list the loader runs; the loader runs releases, and knows neither the ' +
        "list's life (remembered, early, fresh, overrides) nor the slot that shows it.",
      from: { path: `${SHELL}remote-loading/loader/` },
      to: { path: `${SHELL}remote-loading/(catalogue/|remote-slot)` },
    },
    {
      name: 'api-no-circular',
      severity: 'error',
      comment: 'Modules in a cycle can only be understood, loaded and tested together.',
      from: { path: API },
      to: { circular: true },
    },
    {
      name: 'api-module-public-file',
      severity: 'error',
      comment:
        'Another module is imported through its public file, index.ts, and nothing else of it: what is not ' +
        "exported there is the owner's to change. (The dependency-free wire rules the contract copies to the " +
        'sdk, API_WIRE_RULES, are public as they are.)',
      from: { path: `${API}([^/]+)` },
      to: {
        path: `${API}(${API_MODULES.join('|')})/`,
        pathNot: [`${API}$1/`, '/index\\.ts$', API_WIRE_RULES],
      },
    },
    ...API_LAYERS.map((layer, index) => ({
      name: `api-layer-${layer.join('-')}`,
      severity: 'error',
      comment:
        'An import running back up: this module builds on the ones below it (API_LAYERS) and knows nothing ' +
        'above it. Move what both need down, or hand it over through an interface the lower module defines ' +
        '(as registry/canaries.ts and account/subject-erasure.ts do).',
      from: { path: `${API}(${layer.join('|')})/`, pathNot: API_SPEC },
      to: {
        path: [
          `${API}(${API_LAYERS.slice(index + 1)
            .flat()
            .join('|')})/`,
          `${API}[^/]+\\.ts$`,
        ],
        pathNot: API_WIRE_RULES,
      },
    })),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    // The workspaces' package.json "exports" (@atrium/sdk/ui, msw/node...), as TypeScript and the bundlers read them.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types'],
    },
  },
};
