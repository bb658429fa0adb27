import { describe, expect, it } from 'vitest';
import {
  REMOTE_NAME_RULE,
  remoteNameProblem,
  VERSION_MAX_LENGTH,
  VERSION_RULE,
  versionProblem,
} from './remote-rules.js';

describe('the remote-name and version rule', () => {
  it.each(['profile', 'admin', 'ab', 'timeoff2', `a${'b'.repeat(39)}`])('accepts the name %j', (name) => {
    expect(remoteNameProblem(name)).toBeUndefined();
  });

  it.each([
    'time-off', // a JavaScript global in remoteEntry.js cannot contain -
    'time_off',
    'Profile',
    'p',
    '1up',
    'pro file',
    'profile\n',
    '',
    `a${'b'.repeat(40)}`,
    'ｐrofile',
    42,
    undefined,
  ])('refuses the name %j with the rule', (name) => {
    expect(remoteNameProblem(name)).toBe(REMOTE_NAME_RULE);
  });

  it.each(['1.0.0', '0.1.0-beta.2', '10.20.30+build.5', '1.0.0-alpha-a.b-c'])(
    'accepts the version %j',
    (v) => {
      expect(versionProblem(v)).toBeUndefined();
    },
  );

  it.each([
    'v1.0.0',
    '1.0',
    '01.0.0',
    '1.0.0-01',
    ' 1.0.0',
    'latest',
    '../1.0.0',
    `1.0.0-${'a'.repeat(VERSION_MAX_LENGTH)}`,
    1,
  ])('refuses the version %j with the rule', (version) => {
    expect(versionProblem(version)).toBe(VERSION_RULE);
  });
});
