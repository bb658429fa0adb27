// `@atrium/sdk/problem-sentences`: the one place an API refusal becomes words, keyed by the problem's `code` from
// the API's catalogue (docs/errors.md). The shell and remotes read it through `describeApiError`
// (`@atrium/sdk/ui`), tools such as the release CLI directly. Plain data and functions, no state and no classes
// (type imports only): a bundle that takes it gets no second copy of the shared singleton's error classes.
import type { ProblemDocument } from './api-errors.ts';
import type { components } from './generated/api.ts';

/** A code of the API's error catalogue (`npm run contract` generates the list). */
export type ProblemCode = components['schemas']['Problem']['code'];

type Problem = Pick<ProblemDocument, 'status' | 'code' | 'title' | 'detail' | 'errors'>;

const wait = (said: string) => `${said} Wait a moment, then try again.`;
const apiFailed = (status: number) =>
  `The Atrium API failed to answer (HTTP ${status}). Try again in a moment; if it keeps failing, tell the team that runs Atrium.`;

/**
 * The sentence a person reads for a refusal of the API, with the problem's own words (its detail, else its
 * title, then the invalid fields) where it has them. Pass what failed as `failed` ("Preferences were not saved")
 * to lead with it. Screens use `describeApiError` (`@atrium/sdk/ui`), which says this for an `ApiProblemError`.
 *
 * The catalogue gives every code one status, and a code is said as its status is (401: the session has ended,
 * reload; 403: not allowed, ask an administrator; 429: wait; 5xx: the API failed; else its own words), unless
 * it is named here. An answer that was not the API's problem+json (`http_<status>`) is said by its status.
 */
export function describeProblem(problem: Problem, failed?: string): string {
  const said = saidOf(problem);
  const { status } = problem;
  const text =
    // The account service's outage is the person's to wait out: its detail says nothing was changed.
    problem.code === 'identity_admin_unavailable'
      ? said
      : status === 401
        ? 'Your session has ended. Reload the page to sign in again.'
        : status === 403
          ? `You are not allowed to do this. ${said} Ask an administrator for the role it needs.`
          : status === 429
            ? wait(said)
            : status >= 500
              ? apiFailed(status)
              : said;
  return failed === undefined ? text : `${sentence(failed)} ${text}`;
}

/** A tool's sentences for the codes whose sentence is not their status's (see {@link describeProblemToTool}). */
const TOOL_SENTENCES: Readonly<Partial<Record<ProblemCode, (said: string) => string>>> = {
  remote_origin_refused: (said) => `${said} Add the manifest's origin to the API's ALLOWED_REMOTE_ORIGINS.`,
  version_not_found: (said) => `${said} Name a version that was published (the admin console lists them).`,
  shared_dependency_conflict: (said) =>
    `${said} Build the release against what is live (the shell's versions are in its mf-manifest.json), or ` +
    'first deploy the shell or the release that provides what it needs (`npm run compat` checks a shell build).',
  shell_manifest_unavailable: (said) =>
    `${said} Deploy the shell, or point the API's SHELL_MANIFEST_URL at its mf-manifest.json, and try again.`,
};

/**
 * The sentence for a refusal of the API to someone running a tool with a client's own token (the release CLI):
 * as {@link describeProblem}, but 401 is the client's token refused and 403 the API's own words (which name the
 * owner or the role), and the codes in `TOOL_SENTENCES` name their fix. Kept apart from a person's, so the
 * shell's first load (its remotes list says why it failed) does not carry them.
 */
export function describeProblemToTool(problem: Problem, failed?: string): string {
  const said = saidOf(problem);
  const { status } = problem;
  const text = Object.hasOwn(TOOL_SENTENCES, problem.code)
    ? TOOL_SENTENCES[problem.code as ProblemCode]!(said)
    : status === 401
      ? `${said} The API refused the client's token: check its credentials, and that the API trusts this issuer.`
      : status === 429
        ? wait(said)
        : status >= 500
          ? apiFailed(status)
          : said;
  return failed === undefined ? text : `${sentence(failed)} ${text}`;
}

/** The problem's own words: its detail (else its title) and its invalid fields, as sentences. */
function saidOf(problem: Problem): string {
  const fields = problem.errors?.length
    ? ` ${sentence(problem.errors.map(({ field, message }) => `${field} ${message}`).join('; '))}`
    : '';
  return `${sentence(problem.detail ?? problem.title)}${fields}`;
}

/** The text as a sentence: first letter up, ending with a full stop unless it already ends a sentence. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
