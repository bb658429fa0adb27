import { z } from 'zod';
import {
  REMOTE_NAME_PATTERN,
  REMOTE_NAME_RULE,
  VERSION_MAX_LENGTH,
  VERSION_PATTERN,
  VERSION_RULE,
  versionProblem,
} from './remote-rules.js';

const KEBAB_PATH = /^(?:\/[a-z0-9]+(?:-[a-z0-9]+)*)+$/;
const ROLE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
// Keycloak client ids as the realm uses them; bounded by the column that stores a remote's owner.
const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,254}$/;
// Subresource Integrity (W3C SRI) with SHA-384, the hash the release CLI computes: 48 bytes, 64 base64 characters.
const SRI_SHA384 = /^sha384-[A-Za-z0-9+/]{64}$/;
// No NUL, line breaks or other control characters (Unicode category Cc).
const NO_CONTROL_CHARACTERS = /^\P{Cc}*$/u;
// Routes the shell and the platform own; a remote claiming them would shadow sign-in or the API.
const RESERVED_PATHS = ['/auth', '/api'];

/** The longest manifest text a publish may send: Atrium's manifests are a few kilobytes. */
const MANIFEST_MAX_LENGTH = 256 * 1024;

/** A remote's name, by the one rule in remote-rules.ts (refused with its sentence). */
export const remoteNameSchema = z
  .string(REMOTE_NAME_RULE)
  .regex(REMOTE_NAME_PATTERN, REMOTE_NAME_RULE)
  .meta({ description: `a remote's name: ${REMOTE_NAME_RULE}`, example: 'profile' });

/** A release's version, by the one rule in remote-rules.ts. */
export const versionSchema = z
  .string(VERSION_RULE)
  .refine((value) => versionProblem(value) === undefined, VERSION_RULE)
  .meta({
    description: `a release's version: ${VERSION_RULE}`,
    pattern: VERSION_PATTERN.source,
    maxLength: VERSION_MAX_LENGTH,
    example: '1.4.0',
  });

/**
 * A required SRI sha384 hash of one stored file of the release. Missing or null is refused with a message
 * that says how to compute it, because the shell cannot check a release without both hashes.
 */
function sriHashSchema(file: string, description: string) {
  const howTo =
    `is required: the SRI sha384 hash of the release's ${file} ` +
    `("sha384-" + base64 of its SHA-384 digest; \`npm run release\` computes it from the stored files)`;
  return z
    .string({ error: (issue) => (issue.input === undefined || issue.input === null ? howTo : undefined) })
    .regex(SRI_SHA384, 'must be a Subresource Integrity hash sha384-<64 base64 characters>')
    .meta({ description });
}

const titleSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(80, 'must be at most 80 characters')
  // Shown as a navigation label.
  .regex(NO_CONTROL_CHARACTERS, 'must not contain control characters');

const pathSchema = z
  .string()
  .max(100, 'must be at most 100 characters')
  .regex(KEBAB_PATH, 'must be a lowercase kebab-case path starting with /, such as /time-off')
  .refine(
    (value) => !RESERVED_PATHS.some((reserved) => value === reserved || value.startsWith(`${reserved}/`)),
    `must not be ${RESERVED_PATHS.join(' or ')} or below`,
  );

const navOrderSchema = z
  .int('must be an integer')
  .min(0, 'must be 0 or more')
  .max(1000, 'must be 1000 or less');

export const roleListSchema = z
  .array(z.string().regex(ROLE_NAME, 'must be a role name (letters, digits, _ . : -)'))
  .max(20, 'must list at most 20 roles')
  .transform((roles) => [...new Set(roles)]);

const ownerSchema = z
  .string()
  .regex(CLIENT_ID, 'must be a Keycloak client id (letters, digits, _ . : -), such as atrium-deployer')
  .meta({ description: 'client id (`azp`) of the deployer that may publish and activate its versions' });

/** Body of `POST /api/remotes` (atrium-admin): a new remote with its settings and owner. */
export const createRemoteSchema = z
  .strictObject({
    name: remoteNameSchema,
    title: titleSchema,
    path: pathSchema,
    navOrder: navOrderSchema.optional(),
    requiredRoles: roleListSchema.optional(),
    owner: ownerSchema,
  })
  .meta({ id: 'CreateRemote' });

export type CreateRemote = z.output<typeof createRemoteSchema>;

/** Body of `PATCH /api/remotes/{name}` (atrium-admin): the settings to change, at least one. */
export const updateRemoteSchema = z
  .strictObject({
    title: titleSchema.optional(),
    path: pathSchema.optional(),
    navOrder: navOrderSchema.optional(),
    requiredRoles: roleListSchema.optional(),
    owner: ownerSchema.optional(),
  })
  .refine(
    (body) => Object.keys(body).length > 0,
    'must change at least one of title, path, navOrder, requiredRoles, owner',
  )
  .meta({ id: 'UpdateRemote' });

export type UpdateRemote = z.output<typeof updateRemoteSchema>;

// A publish that tries to set a remote's settings is refused by name rather than as an unknown field.
const setByAdmin = z
  .never({
    error:
      "is not accepted on publish: a remote's title, path, navOrder, requiredRoles and owner are set by an " +
      'administrator (role atrium-admin) with POST /api/remotes or PATCH /api/remotes/{name}',
  })
  .optional()
  .meta({ description: 'refused: set by an administrator (PATCH /api/remotes/{name})' });

/**
 * Body of `POST /api/remotes/{name}/versions`. The manifest origin allowlist is configuration, so the
 * service checks it (see {@link manifestOriginProblem}); everything else is here.
 */
export const publishVersionSchema = z
  .strictObject({
    version: versionSchema,
    manifestUrl: z
      .string()
      .max(2048, 'must be at most 2048 characters')
      // The URL parser would quietly drop or percent-encode them, so the stored text would not be the URL.
      .regex(NO_CONTROL_CHARACTERS, 'must not contain control characters')
      .superRefine((value, ctx) => {
        let url: URL;
        try {
          url = new URL(value);
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL' });
          return;
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:') {
          ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL' });
        } else if (url.username || url.password || url.hash) {
          ctx.addIssue({ code: 'custom', message: 'must not carry credentials or a fragment' });
        } else if (!url.pathname.endsWith('/mf-manifest.json')) {
          ctx.addIssue({ code: 'custom', message: 'must point to an mf-manifest.json' });
        }
      })
      .meta({ format: 'uri', description: "URL of this version's mf-manifest.json" }),
    integrity: sriHashSchema(
      'remoteEntry.js the manifest names',
      "SRI hash of the stored remoteEntry.js that this version's manifest names",
    ),
    manifestIntegrity: sriHashSchema(
      'mf-manifest.json, byte for byte as stored',
      "SRI hash of this version's stored mf-manifest.json, its exact bytes",
    ),
    manifest: z
      .string()
      .max(MANIFEST_MAX_LENGTH, `must be at most ${MANIFEST_MAX_LENGTH} characters`)
      .optional()
      .meta({
        description:
          "the stored mf-manifest.json's exact text, whose hash must be manifestIntegrity: the packages it " +
          'shares are checked against the shell and the live releases (docs/errors.md, ' +
          'shared_dependency_conflict). Without it the version is published unchecked.',
      }),
    // Who may see a remote and where it appears are an administrator's decisions, not a deployer's.
    title: setByAdmin,
    path: setByAdmin,
    navOrder: setByAdmin,
    requiredRoles: setByAdmin,
    owner: setByAdmin,
    activate: z.boolean('must be true or false').optional(),
    breaking: z
      .boolean('must be true or false')
      .optional()
      .meta({
        description:
          "the publisher says this version breaks the type contract of the active one (the release CLI's " +
          '--breaking); kept with the version and in the audit log',
      }),
  })
  .meta({ id: 'PublishVersion' });

export type PublishVersion = z.output<typeof publishVersionSchema>;

/** Why a (syntactically valid) manifest URL is refused by the origin allowlist, or undefined. */
export function manifestOriginProblem(
  manifestUrl: string,
  allowedOrigins: readonly string[],
): string | undefined {
  const origin = new URL(manifestUrl).origin;
  return allowedOrigins.includes(origin)
    ? undefined
    : `origin ${origin} is not allowed (allowed: ${allowedOrigins.join(', ')})`;
}

export const activateVersionSchema = z.strictObject({ version: versionSchema });

export type ActivateVersion = z.output<typeof activateVersionSchema>;

/** Body of `POST /api/remotes/{name}/versions/{version}/withdrawal`: why, in words people will read. */
export const withdrawVersionSchema = z
  .strictObject({
    reason: z
      .string('must be a string')
      .trim()
      .min(1, 'must say why the version is withdrawn')
      .max(500, 'must be at most 500 characters')
      .regex(NO_CONTROL_CHARACTERS, 'must not contain control characters')
      .describe('shown to the people whose open pages drop the version, and kept in the audit log'),
  })
  .meta({ id: 'WithdrawVersion' });

export type WithdrawVersion = z.output<typeof withdrawVersionSchema>;

export const versionParamSchema = versionSchema;

export const remoteNameParamSchema = remoteNameSchema;

// Response documents: used for the OpenAPI description.
const remoteDetailShape = {
  name: z.string(),
  title: z.string(),
  path: z.string(),
  navOrder: z.int(),
  requiredRoles: z.array(z.string()),
  owner: z.string().describe('client id of the deployer that publishes and activates its versions'),
  activeVersion: z.string().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
};

const remoteDetailExample = {
  name: 'profile',
  title: 'Profile',
  path: '/profile',
  navOrder: 10,
  requiredRoles: [],
  owner: 'atrium-deployer',
  activeVersion: '1.0.1',
  createdAt: '2026-11-22T02:20:24.000Z',
  updatedAt: '2026-11-23T10:45:38.000Z',
};

export const remoteDetailSchema = z
  .object(remoteDetailShape)
  .meta({ id: 'RemoteDetail', description: 'a registered remote', example: remoteDetailExample });

const sharedDependencySchema = z
  .object({
    name: z.string(),
    shareScope: z.string(),
    singleton: z.boolean(),
    requiredVersion: z.string().nullable().describe('the versions it accepts, a semver range; null: any'),
    providedVersion: z
      .string()
      .nullable()
      .describe("the version of the copy it brings; null: none, it uses the shell's"),
  })
  .meta({ id: 'SharedDependency', description: "a package a release's mf-manifest.json shares" });

export const versionDocSchema = z
  .object({
    version: z.string(),
    manifestUrl: z.string(),
    integrity: z.string().nullable(),
    // Null only for versions registered before both hashes were required; those are never served.
    manifestIntegrity: z.string().nullable(),
    shared: z
      .array(sharedDependencySchema)
      .nullable()
      .describe('the packages its manifest shares; null: published without its manifest, so never checked'),
    publishedBy: z.string(),
    publishedAt: z.iso.datetime(),
    active: z.boolean(),
    withdrawal: z
      .object({ at: z.iso.datetime(), by: z.string(), reason: z.string() })
      .nullable()
      .describe('set once an administrator withdrew the version: it is never served again'),
    breaking: z.boolean().describe('published as breaking the type contract of the version active before it'),
  })
  .meta({
    id: 'VersionDoc',
    description: 'one immutable release of a remote',
    example: {
      version: '1.0.1',
      manifestUrl: 'http://localhost:4100/profile/1.0.1/mf-manifest.json',
      integrity: `sha384-${'A'.repeat(64)}`,
      manifestIntegrity: `sha384-${'B'.repeat(64)}`,
      shared: [
        {
          name: 'react',
          shareScope: 'default',
          singleton: true,
          requiredVersion: '^19.3.1',
          providedVersion: null,
        },
      ],
      publishedBy: 'atrium-deployer',
      publishedAt: '2026-11-23T10:45:38.000Z',
      active: true,
      withdrawal: null,
      breaking: false,
    },
  });

export const remoteListSchema = z
  .object({
    remotes: z.array(
      z
        .object({
          name: z.string(),
          title: z.string(),
          path: z.string(),
          navOrder: z.int(),
          version: z.string(),
          entry: z.string().describe("the active version's mf-manifest.json URL"),
          integrity: z.string().describe('SRI hash of the remoteEntry.js the manifest names'),
          manifestIntegrity: z.string().describe('SRI hash of the mf-manifest.json, its exact bytes'),
          requiredRoles: z
            .array(z.string())
            .describe(
              'the roles it requires, all of which the caller holds; the shell lets no dev override replace a ' +
                'remote that requires the administrator role',
            ),
        })
        .meta({
          id: 'RemoteEntry',
          description: 'a remote the caller may load, with its active release',
          example: {
            name: 'profile',
            title: 'Profile',
            path: '/profile',
            navOrder: 10,
            version: '1.0.1',
            entry: 'http://localhost:4100/profile/1.0.1/mf-manifest.json',
            integrity: `sha384-${'A'.repeat(64)}`,
            manifestIntegrity: `sha384-${'B'.repeat(64)}`,
            requiredRoles: [],
          },
        }),
    ),
    withdrawn: z
      .array(
        z
          .object({
            name: z.string(),
            version: z.string(),
            kind: z
              .enum(['withdrawn', 'rolled-back'])
              .describe('withdrawn by an administrator, or a canary rolled back (by hand or automatically)'),
            reason: z.string(),
          })
          .meta({
            id: 'PulledRelease',
            description:
              'a release of a listed remote that is no longer served: an open page that holds it stops ' +
              'loading it and shows why',
            example: { name: 'profile', version: '1.1.0', kind: 'withdrawn', reason: 'leaks data' },
          }),
      )
      .describe('releases of the listed remotes that open pages must drop'),
  })
  .meta({ id: 'RemoteList' });

export const publishResultSchema = z
  .object({ remote: remoteDetailSchema, version: versionDocSchema })
  .meta({ id: 'PublishResult' });

export const versionHistorySchema = z
  .object({
    remote: remoteDetailSchema,
    versions: z.array(versionDocSchema),
  })
  .meta({ id: 'VersionHistory' });

export const adminRemoteListSchema = z
  .object({
    remotes: z.array(
      z
        .object({ ...remoteDetailShape, versions: z.array(versionDocSchema) })
        .meta({ id: 'AdminRemote', description: 'a registered remote with every version, newest first' }),
    ),
  })
  .meta({ id: 'AdminRemoteList' });
