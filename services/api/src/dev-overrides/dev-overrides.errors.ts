import { DomainError } from '../common/errors/domain-errors.js';

// The dev overrides' refusal (its code and status: common/errors/error-catalogue.ts).

/**
 * A dev override the API does not allow: overrides are off here (no DEV_OVERRIDE_ORIGINS), the dev server is on
 * one of the platform's own origins or on none DEV_OVERRIDE_ORIGINS allows, the remote is unknown or one only
 * administrators may see, or the token names no sign-in session to approve it for. (Without the role
 * atrium-developer the caller gets insufficient_scope first.)
 */
export class DevOverrideRefusedError extends DomainError {
  readonly code = 'dev_override_refused';
  override readonly extensions: Readonly<Record<string, unknown>>;
  /** `reason`: the sentence the shell shows, e.g. from the rules of dev-override-rules.ts. */
  constructor(reason: string, allowedOrigins: readonly string[]) {
    super(
      allowedOrigins.length === 0
        ? 'Dev overrides are off on this deployment (DEV_OVERRIDE_ORIGINS is not set).'
        : `${reason}.`,
    );
    this.extensions = { allowedOrigins };
  }
}
