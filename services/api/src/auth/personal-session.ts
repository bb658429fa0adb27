import { PersonalSessionRequiredError } from './auth.errors.js';
import type { AppConfig } from '../config/index.js';
import type { AuthenticatedUser } from './access-token.js';

/**
 * Refuses a caller that is not a person signed in through the shell (`azp` one of SHELL_CLIENTS): a machine
 * client (the deployer's or the platform's pipeline) holds a token of its own service account, which has no
 * account to manage and no browser whose loads it could report. `act` completes "Only a person … can".
 */
export function requirePersonalSession(
  user: AuthenticatedUser,
  config: Pick<AppConfig, 'shellClients'>,
  act: string,
): void {
  if (user.clientId === null || !config.shellClients.includes(user.clientId)) {
    throw new PersonalSessionRequiredError(user.clientId, act);
  }
}
