import { describe, expect, it } from 'vitest';
import { describeProblem, describeProblemToTool } from './problem-sentences';

const problem = (status: number, code: string, detail?: string) =>
  ({ status, code, title: 'Refused', ...(detail ? { detail } : {}) }) as Parameters<
    typeof describeProblem
  >[0];

describe('describeProblem', () => {
  it("says a code's own sentence around the problem's detail, for a person or a tool", () => {
    const missing = problem(404, 'version_not_found', 'Remote "leave" has no version 9.9.9.');
    expect(describeProblem(missing)).toBe('Remote "leave" has no version 9.9.9.');
    expect(describeProblemToTool(missing, 'Not rolled back')).toBe(
      'Not rolled back. Remote "leave" has no version 9.9.9. Name a version that was published (the admin console lists them).',
    );
    const origin = problem(400, 'remote_origin_refused', 'Origin https://cdn.test is not allowed');
    expect(describeProblemToTool(origin)).toBe(
      "Origin https://cdn.test is not allowed. Add the manifest's origin to the API's ALLOWED_REMOTE_ORIGINS.",
    );
  });

  it('tells a tool how to get a release past the shared-dependency gate, and a person what was refused', () => {
    const conflict = problem(
      409,
      'shared_dependency_conflict',
      'Remote "leave" 2.0.0 cannot run beside what is live: it needs react ^20.0.0, and the shell provides 19.3.1.',
    );
    expect(describeProblemToTool(conflict)).toBe(
      'Remote "leave" 2.0.0 cannot run beside what is live: it needs react ^20.0.0, and the shell provides ' +
        "19.3.1. Build the release against what is live (the shell's versions are in its mf-manifest.json), or " +
        'first deploy the shell or the release that provides what it needs (`npm run compat` checks a shell build).',
    );
    expect(describeProblem(conflict, 'leave 2.0.0 was not activated')).toBe(
      'Leave 2.0.0 was not activated. Remote "leave" 2.0.0 cannot run beside what is live: it needs react ' +
        '^20.0.0, and the shell provides 19.3.1.',
    );
    const unread = problem(503, 'shell_manifest_unavailable', "The shell's manifest could not be read");
    expect(describeProblemToTool(unread)).toBe(
      "The shell's manifest could not be read. Deploy the shell, or point the API's SHELL_MANIFEST_URL at its " +
        'mf-manifest.json, and try again.',
    );
  });

  it('sends a person to reload the page and a tool to its credentials when the token is refused', () => {
    const refused = problem(401, 'invalid_token', 'The access token was refused: it has expired.');
    expect(describeProblem(refused)).toBe('Your session has ended. Reload the page to sign in again.');
    expect(describeProblemToTool(refused)).toMatch(
      /^The access token was refused: it has expired\. The API refused the client's token/,
    );
  });

  it('says what the account service said when it is down, and blames the API for its own failures', () => {
    expect(describeProblem(problem(503, 'identity_admin_unavailable', 'Keycloak is unavailable.'))).toBe(
      'Keycloak is unavailable.',
    );
    expect(describeProblem(problem(500, 'internal_error', 'stack'))).toMatch(
      /^The Atrium API failed to answer \(HTTP 500\)/,
    );
  });

  it("says every other code by its status, as an answer that was not the API's problem+json", () => {
    const owner = problem(403, 'not_remote_owner', 'Remote "leave" is owned by "team-b".');
    expect(describeProblem(owner)).toBe(
      'You are not allowed to do this. Remote "leave" is owned by "team-b". Ask an administrator for the role it needs.',
    );
    expect(describeProblemToTool(owner)).toBe('Remote "leave" is owned by "team-b".');
    expect(describeProblem(problem(429, 'rate_limited', 'At most 12 per minute'))).toBe(
      'At most 12 per minute. Wait a moment, then try again.',
    );
    expect(describeProblem(problem(409, 'http_409', undefined))).toBe('Refused.');
    expect(describeProblem(problem(400, 'constructor', 'Odd'))).toBe('Odd.');
  });

  it('keeps a `$` in the detail as it is', () => {
    expect(describeProblem(problem(400, 'validation_failed', "costs $' and $&"))).toBe("Costs $' and $&.");
  });
});
