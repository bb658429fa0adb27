// The shell container's variables (shell/app/Dockerfile's ENV, read by nginx's templates and the entrypoint
// scripts beside this file). `npm run contract` writes them into .env.example and docs/deploy.md with the
// others; infra/contract/config-variables.spec.ts holds the defaults to the Dockerfile's. Its shape is the API's
// ConfigGroup (services/api/src/config/variables.ts), which the shell may not import.

/** What the shell container reads at start, each with what it is for and its default. */
export const SHELL_CONTAINER_VARIABLES = {
  title: 'Shell container',
  readBy: 'shell/app/Dockerfile',
  about:
    'Written into /atrium.config.json and the Content-Security-Policy when the container starts ' +
    '(shell/app/deploy). `npm start` fills the same template itself and reads none of them.',
  variables: [
    {
      name: 'ATRIUM_OIDC_AUTHORITY',
      purpose: "The issuer people sign in at (the API's OIDC_ISSUER_URL).",
      default: 'http://localhost:8080/realms/atrium',
    },
    {
      name: 'ATRIUM_OIDC_CLIENT_ID',
      purpose: "The client people sign in through (one of the API's SHELL_CLIENTS).",
      default: 'atrium-shell',
    },
    {
      name: 'ATRIUM_API_URL',
      purpose: "The API's origin browsers call (the API's API_PUBLIC_URL).",
      default: 'http://localhost:3000',
    },
    {
      name: 'ATRIUM_REMOTES_URL',
      purpose: "Where the shell reads the registry's list of remotes.",
      default: 'http://localhost:3000/api/remotes',
    },
    {
      name: 'ATRIUM_REMOTE_TIMEOUT_MS',
      purpose: 'How long a remote may take to load before its slot gives up, in milliseconds.',
      default: '10000',
    },
    {
      name: 'ATRIUM_REMOTE_ORIGINS',
      purpose:
        'Origins the remotes are loaded from (release store or CDN), space-separated: the only script sources ' +
        "besides the shell in its Content-Security-Policy. Keep it in step with the API's ALLOWED_REMOTE_ORIGINS.",
      default: 'http://localhost:4100',
    },
    {
      name: 'ATRIUM_DEV_OVERRIDE_ORIGINS',
      purpose:
        'Dev overrides: origins separated by spaces (`scheme://host:port`, or `scheme://host:*` for any port) ' +
        "whose dev servers people with the role atrium-developer may load, with the API's DEV_OVERRIDE_ORIGINS; " +
        'they and their ws: sockets join the Content-Security-Policy. Unset: off; anything but an http(s) ' +
        'origin stops the container (docs/deploy.md#dev-overrides).',
      example: 'http://localhost:5001 http://localhost:5002',
    },
    {
      name: 'ATRIUM_OTLP_TRACES_URL',
      purpose:
        "Tracing of the shell's API calls: the OTLP/HTTP traces URL browsers send their spans to (a collector " +
        "that allows the shell's origin by CORS; allowed by the Content-Security-Policy). Unset: off, and no " +
        "tracing code is loaded. `npm start` instead derives it from the API's OTEL_EXPORTER_OTLP_* variables; " +
        'docker compose passes it through.',
      example: 'http://localhost:4318/v1/traces',
    },
  ],
} as const;
