import 'reflect-metadata';
import { loadConfig } from './config/index.js';
import { createApp } from './create-app.js';
import { describeApi } from './common/openapi/openapi-document.js';

/**
 * Prints the API's OpenAPI document to stdout without a database, an issuer or a listening socket: the
 * application is built in Nest's preview mode (no provider is created). `npm run contract` (infra/contract)
 * runs this from the API's build and writes the sdk's generated files from it.
 */
const config = loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'error', DATABASE_URL: 'sqlite::memory:' });
const app = await createApp(config, { logger: false, preview: true });
process.stdout.write(`${JSON.stringify(describeApi(app), null, 2)}\n`);
await app.close();
