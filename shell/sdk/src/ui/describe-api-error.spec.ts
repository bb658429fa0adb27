import { ApiAuthorizationError, ApiNetworkError, ApiProblemError } from '@atrium/sdk';
import { describe, expect, it } from 'vitest';
import { describeApiError } from './describe-api-error';

const problem = (status: number, extra: Partial<ConstructorParameters<typeof ApiProblemError>[0]> = {}) =>
  new ApiProblemError({ type: 'about:blank', title: 'Refused', status, code: `http_${status}`, ...extra });

describe('describeApiError', () => {
  it('says the API is unreachable and what to check when no answer came', () => {
    expect(describeApiError(new ApiNetworkError('http://localhost:3000/api/me'))).toBe(
      'The Atrium API could not be reached. Check your connection (or that the API is running), then try again.',
    );
  });

  it("leads with what failed, and uses the problem's detail, else its title", () => {
    expect(
      describeApiError(problem(409, { detail: 'A remote named "profile" already exists.' }), 'Not created'),
    ).toBe('Not created. A remote named "profile" already exists.');
    expect(describeApiError(problem(404, { title: 'remote not found' }))).toBe('Remote not found.');
  });

  it('names each invalid field of a validation problem', () => {
    const error = problem(400, {
      title: 'Invalid request',
      errors: [{ field: 'theme', message: 'must be one of system, light, dark' }],
    });
    expect(describeApiError(error, 'Preferences were not saved')).toBe(
      'Preferences were not saved. Invalid request. Theme must be one of system, light, dark.',
    );
  });

  it('sends a person whose session ended (401) to sign in again', () => {
    expect(describeApiError(problem(401))).toBe('Your session has ended. Reload the page to sign in again.');
  });

  it('says a refusal (403) is about permission, with the reason, and who can change it', () => {
    expect(describeApiError(problem(403, { detail: 'Needs atrium-admin' }))).toBe(
      'You are not allowed to do this. Needs atrium-admin. Ask an administrator for the role it needs.',
    );
  });

  it('blames the API, not the person, for a 5xx and says what to do', () => {
    expect(describeApiError(problem(503, { detail: 'stack trace here' }))).toBe(
      'The Atrium API failed to answer (HTTP 503). Try again in a moment; if it keeps failing, tell the team that runs Atrium.',
    );
  });

  it('explains a request the sdk would not send, and anything unexpected', () => {
    expect(describeApiError(new ApiAuthorizationError('http://localhost:3000/api/me'))).toMatch(
      /could not be confirmed.*Reload the page/,
    );
    expect(describeApiError(new TypeError('x is undefined'))).toBe(
      'Something unexpected went wrong (x is undefined). Try again; if it keeps happening, reload the page.',
    );
  });
});
