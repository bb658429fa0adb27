import { describe, expect, it } from 'vitest';
import { ACTION_CHOICES, actionLabel, describeEntry, isAuditAction } from './audit-words';

describe('describeEntry', () => {
  it('says what each action did in words, from its details', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['remote.created', { remote: 'profile' }, 'Created the remote'],
      [
        'remote.updated',
        { remote: 'profile', changes: { title: {}, requiredRoles: {}, navOrder: {} } },
        'Changed the title, required roles, order',
      ],
      ['remote.version.published', { version: '1.0.1' }, 'Published version 1.0.1'],
      [
        'remote.version.published',
        { version: '2.0.0', breaking: true },
        'Published version 2.0.0, marked as breaking',
      ],
      [
        'remote.version.activated',
        { version: '1.0.0', previousVersion: '1.0.1' },
        'Activated version 1.0.0 (was 1.0.1)',
      ],
      ['remote.version.activated', { version: '1.0.0', previousVersion: null }, 'Activated version 1.0.0'],
      [
        'remote.version.refused',
        { version: '2.0.0', act: 'canary', reason: 'react 18 conflicts with the shell' },
        'Refused to start a canary of version 2.0.0: react 18 conflicts with the shell',
      ],
      ['remote.version.withdrawn', { version: '1.0.1', reason: 'leaks' }, 'Withdrew version 1.0.1: leaks'],
      [
        'remote.rollout.started',
        { version: '1.1.0', percent: 10 },
        'Started a canary of version 1.1.0 for 10% of people',
      ],
      ['remote.rollout.changed', { version: '1.1.0' }, 'Changed the canary of version 1.1.0'],
      [
        'remote.rollout.promoted',
        { version: '1.1.0' },
        'Made the canary of version 1.1.0 the active version',
      ],
      ['remote.rollout.aborted', { version: '1.1.0', reason: null }, 'Stopped the canary of version 1.1.0'],
      [
        'remote.rollout.rolled_back',
        { version: '1.1.0', reason: 'loads failed' },
        'Rolled back the canary of version 1.1.0: loads failed',
      ],
      [
        'dev.override.activated',
        { remote: 'profile', url: 'http://localhost:5001/mf-manifest.json' },
        'Loaded profile from a dev server (http://localhost:5001/mf-manifest.json) in one session',
      ],
      ['dev.override.reset', {}, 'Went back to the released remotes in one session'],
      ['account.deleted', {}, 'Account deleted'],
      ['keycloak.login_error', { error: 'invalid_user_credentials' }, 'Failed sign-in'],
      ['keycloak.delete_account', {}, 'Sign-in service: delete account'],
      ['keycloak.admin.action_user', {}, 'Sign-in service administration: action user'],
      // Details missing or of another shape: still a sentence.
      ['remote.version.published', {}, 'Published a version'],
      ['remote.updated', { changes: 'all' }, 'Changed the settings'],
    ];
    for (const [action, details, words] of cases) {
      expect(describeEntry({ action, details }), action).toBe(words);
    }
  });
});

describe('the actions the filter offers', () => {
  it("lists the platform's actions and the sign-in service's, each once, with a label", () => {
    const values = ACTION_CHOICES.map((choice) => choice.value);
    expect(new Set(values).size).toBe(values.length);
    expect(values).toContain('remote.version.activated');
    expect(values).toContain('keycloak.login_error');
    expect(actionLabel('keycloak.login_error')).toBe('Failed sign-in');
    expect(ACTION_CHOICES.every((choice) => choice.label !== '' && choice.label !== choice.value)).toBe(true);
  });

  it('knows an action the log can hold from one it cannot', () => {
    expect(isAuditAction('remote.rollout.rolled_back')).toBe(true);
    expect(isAuditAction('keycloak.update_profile')).toBe(true);
    expect(isAuditAction('remote.deleted')).toBe(false);
    expect(isAuditAction('')).toBe(false);
  });
});
