// `npm run contract`: the API's contract, written once and generated everywhere else.
//   1. the API's OpenAPI 3.1 document, built from its routes without a server or database
//      (services/api/src/contract.ts, from the API's build) → shell/sdk/src/generated/openapi.json
//   2. TypeScript wire types from it (openapi-typescript)      → shell/sdk/src/generated/api.ts
//   3. the API's dependency-free rule modules (RULE_MODULES in generate.ts: the remote-name and version rule,
//      telemetry's batch bounds, the dev-override origin rule, the role names) → shell/sdk/src/generated/<same name>.ts
//   4. Redocly's lint of the document (redocly.yaml): any error fails.
//   5. the configuration variables, from their tables (config-variables.ts) → .env.example and the section
//      "Configuration variables" of docs/deploy.md
// `npm run contract -- --check` (a stage of `npm test`) writes nothing: it fails when a committed file
// differs from what the API and the tables now describe, then lints the document.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildStale } from '../dev/build.ts';
import { generateConfigFiles } from './config-variables.ts';
import { contractFiles, generateContract } from './generate.ts';
import { repoRoot as root } from '../lib/paths.ts';

const check = process.argv.includes('--check');

await buildStale(root, (line) => console.log(`  ${line}`), ['services/api']);
const document = spawnSync(process.execPath, ['services/api/dist/contract.js'], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
if (document.status !== 0) {
  console.error(document.stderr);
  console.error('The API could not describe itself (node services/api/dist/contract.js failed).');
  process.exit(1);
}

const generated = {
  ...(await generateContract(root, document.stdout)),
  ...(await generateConfigFiles(root)),
};
const stale: string[] = [];
for (const [file, text] of Object.entries(generated)) {
  const path = join(root, file);
  let current: string | undefined;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === text) continue;
  if (check) stale.push(file);
  else {
    writeFileSync(path, text);
    console.log(`  wrote ${relative(root, path)}`);
  }
}
if (stale.length > 0) {
  console.error(
    `The generated contract is stale: ${stale.join(', ')} no longer match${stale.length === 1 ? 'es' : ''} ` +
      "what they are generated from (the API's routes and schemas, the tables of configuration variables). " +
      'Run `npm run contract` and commit the result.',
  );
  process.exit(1);
}
if (check)
  console.log(`  ${Object.keys(generated).length} generated files match what they are generated from`);

const lint = spawnSync(
  join(root, 'node_modules/.bin/redocly'),
  ['lint', contractFiles.document, '--config', 'redocly.yaml', '--format', 'stylish'],
  { cwd: root, stdio: 'inherit' },
);
if (lint.status !== 0) {
  console.error(`Redocly refused the OpenAPI document ${contractFiles.document} (see above).`);
  process.exit(1);
}
