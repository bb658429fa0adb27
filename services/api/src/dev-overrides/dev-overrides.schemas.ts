import { z } from 'zod';
import { remoteNameSchema } from '../registry/index.js';
import { DEV_SERVER_ENTRY_PATH } from './dev-override-rules.js';

/** Body of `POST /api/dev-overrides`: which remote a developer's session loads from which dev server. */
export const devOverrideSchema = z
  .strictObject({
    remote: remoteNameSchema,
    url: z
      .url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' })
      .max(2048, 'must be at most 2048 characters')
      .refine(
        (value) => DEV_SERVER_ENTRY_PATH.test(new URL(value).pathname),
        "must be a dev server's remoteEntry.js or mf-manifest.json",
      )
      .meta({ description: "URL of the dev server's remoteEntry.js or mf-manifest.json" }),
  })
  .meta({ id: 'DevOverride' });

export type DevOverride = z.output<typeof devOverrideSchema>;

export const devOverrideRecordSchema = z
  .object({ remote: z.string(), url: z.string(), actor: z.string(), recordedAt: z.string() })
  .meta({ id: 'DevOverrideRecord', description: "a dev override the API approved for the caller's session" });

export const devOverrideApprovalsSchema = z.object({ overrides: z.array(devOverrideRecordSchema) }).meta({
  id: 'DevOverrideApprovals',
  description:
    "the dev overrides approved for the caller's sign-in session (the token's sid) since its last reset, that " +
    'the rules still allow: the only ones the shell applies',
});

export interface DevOverrideApprovals {
  overrides: DevOverrideRecord[];
}

export interface DevOverrideRecord {
  remote: string;
  url: string;
  actor: string;
  recordedAt: string;
}
