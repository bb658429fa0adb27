import type { AuditAction, AuditEntry } from '@atrium/sdk';
import { SECURITY_EVENT_WORDS } from '@atrium/sdk/security-event-words';

type Details = AuditEntry['details'];

/** A detail that is a non-empty string, or undefined. */
function text(details: Details, key: string): string | undefined {
  const value = details[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `version 1.0.1`, or `a version` when the entry does not say which. */
function versionOf(details: Details): string {
  const version = text(details, 'version');
  return version === undefined ? 'a version' : `version ${version}`;
}

/** `: reason` when the entry gives one. */
function because(details: Details): string {
  const reason = text(details, 'reason');
  return reason === undefined ? '' : `: ${reason}`;
}

/** A remote's settings, as the settings form names them. */
const SETTINGS: Readonly<Record<string, string>> = {
  title: 'title',
  path: 'path',
  navOrder: 'order',
  requiredRoles: 'required roles',
  owner: 'owner',
};

const ACTS: Readonly<Record<string, string>> = {
  publish: 'publish',
  activate: 'activate',
  canary: 'start a canary of',
};

interface ActionWords {
  /** What the action filter lists. */
  readonly label: string;
  /** The entry in words, from its details. */
  readonly describe: (details: Details) => string;
}

/**
 * Every action the platform records, in words: the contract's `AuditAction` is the list, so an action the
 * API adds is a type error here until it has its words.
 */
const PLATFORM: Readonly<Record<AuditAction, ActionWords>> = {
  'remote.created': { label: 'Created a remote', describe: () => 'Created the remote' },
  'remote.updated': {
    label: "Changed a remote's settings",
    describe: (details) => {
      const changes = details['changes'];
      const names =
        typeof changes === 'object' && changes !== null
          ? Object.keys(changes).map((key) => SETTINGS[key] ?? key)
          : [];
      return names.length === 0 ? 'Changed the settings' : `Changed the ${names.join(', ')}`;
    },
  },
  'remote.version.published': {
    label: 'Published a version',
    describe: (details) =>
      `Published ${versionOf(details)}${details['breaking'] === true ? ', marked as breaking' : ''}`,
  },
  'remote.version.activated': {
    label: 'Activated a version',
    describe: (details) => {
      const previous = text(details, 'previousVersion');
      return `Activated ${versionOf(details)}${previous === undefined ? '' : ` (was ${previous})`}`;
    },
  },
  'remote.version.refused': {
    label: 'Refused a version',
    describe: (details) =>
      `Refused to ${ACTS[text(details, 'act') ?? ''] ?? 'use'} ${versionOf(details)}${because(details)}`,
  },
  'remote.version.withdrawn': {
    label: 'Withdrew a version',
    describe: (details) => `Withdrew ${versionOf(details)}${because(details)}`,
  },
  'remote.rollout.started': {
    label: 'Started a canary',
    describe: (details) => {
      const percent = details['percent'];
      const share = typeof percent === 'number' ? ` for ${percent}% of people` : '';
      return `Started a canary of ${versionOf(details)}${share}`;
    },
  },
  'remote.rollout.changed': {
    label: 'Changed a canary',
    describe: (details) => `Changed the canary of ${versionOf(details)}`,
  },
  'remote.rollout.promoted': {
    label: 'Made a canary active',
    describe: (details) => `Made the canary of ${versionOf(details)} the active version`,
  },
  'remote.rollout.aborted': {
    label: 'Stopped a canary',
    describe: (details) => `Stopped the canary of ${versionOf(details)}${because(details)}`,
  },
  'remote.rollout.rolled_back': {
    label: 'Rolled a canary back',
    describe: (details) => `Rolled back the canary of ${versionOf(details)}${because(details)}`,
  },
  'dev.override.activated': {
    label: 'Loaded a remote from a dev server',
    describe: (details) => {
      const url = text(details, 'url');
      return `Loaded ${text(details, 'remote') ?? 'a remote'} from a dev server${url === undefined ? '' : ` (${url})`} in one session`;
    },
  },
  'dev.override.reset': {
    label: 'Reset dev overrides',
    describe: () => 'Went back to the released remotes in one session',
  },
  'account.deleted': { label: 'Account deleted', describe: () => 'Account deleted' },
};

const KEYCLOAK_PREFIX = 'keycloak.';
const KEYCLOAK_ADMIN_PREFIX = 'keycloak.admin.';

const signInWords = new Map<string, string>(
  Object.entries(SECURITY_EVENT_WORDS).map(([type, label]) => [
    `${KEYCLOAK_PREFIX}${type.toLowerCase()}`,
    label,
  ]),
);

function isPlatformAction(action: string): action is AuditAction {
  return Object.hasOwn(PLATFORM, action);
}

/** The actions the filter offers: the platform's, then the sign-in service's, each with its label. */
export const ACTION_CHOICES: readonly { readonly value: string; readonly label: string }[] = [
  ...Object.entries(PLATFORM).map(([value, words]) => ({ value, label: words.label })),
  ...[...signInWords].map(([value, label]) => ({ value, label })),
];

/** Whether `action` may name entries of the log: the platform's, or a Keycloak event (which the API checks). */
export function isAuditAction(action: string): boolean {
  return isPlatformAction(action) || action.startsWith(KEYCLOAK_PREFIX);
}

/** The label of an action, for the filter: its words, or for an unlisted Keycloak event its type in words. */
export function actionLabel(action: string): string {
  if (isPlatformAction(action)) return PLATFORM[action].label;
  return signInWords.get(action) ?? keycloakWords(action);
}

/** What an entry did, in words a person reads ("Published version 1.0.1"); the action's code stays in the title. */
export function describeEntry(entry: Pick<AuditEntry, 'action' | 'details'>): string {
  if (isPlatformAction(entry.action)) return PLATFORM[entry.action].describe(entry.details);
  return signInWords.get(entry.action) ?? keycloakWords(entry.action);
}

/** A Keycloak event no label names: `keycloak.update_profile` → "Sign-in service: update profile". */
function keycloakWords(action: string): string {
  if (action.startsWith(KEYCLOAK_ADMIN_PREFIX)) {
    return `Sign-in service administration: ${action.slice(KEYCLOAK_ADMIN_PREFIX.length).replaceAll('_', ' ')}`;
  }
  if (action.startsWith(KEYCLOAK_PREFIX)) {
    return `Sign-in service: ${action.slice(KEYCLOAK_PREFIX.length).replaceAll('_', ' ')}`;
  }
  return action;
}
