import type { LogLevel } from '@nestjs/common';

/** Where the API keeps its data; chosen from `DATABASE_URL`. */
export type DatabaseTarget =
  | { readonly driver: 'postgresql'; readonly url: string }
  | { readonly driver: 'sqlite'; readonly path: string };

/** The validated configuration the whole API runs on; built once by `loadConfig()`. */
export interface AppConfig {
  readonly port: number;
  readonly host: string;
  readonly oidcIssuerUrl: string;
  /** Where the discovery document is fetched; differs from the issuer when the API reaches it by another name. */
  readonly oidcDiscoveryUrl: string;
  readonly oidcAudience: string;
  readonly database: DatabaseTarget;
  readonly corsOrigins: readonly string[];
  readonly logLevel: LogLevel;
  readonly migrateOnBoot: boolean;
}

/** Nest injection token for {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');
