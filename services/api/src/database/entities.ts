import { AccountAccess } from '../account/account-access.entity.js';
import { ErasedSubject } from '../account/erased-subject.entity.js';
import { KeycloakEventCursor } from '../account/keycloak-event-cursor.entity.js';
import { AuditEvent } from '../audit/audit-event.entity.js';
import { UserProfile } from '../me/user-profile.entity.js';
import { CanaryReporter } from '../telemetry/canary-reporter.entity.js';
import { RemoteHealth } from '../telemetry/remote-health.entity.js';
import { RemoteRollout } from '../registry/rollout.entity.js';
import { RemoteVersion } from '../registry/remote-version.entity.js';
import { Remote } from '../registry/remote.entity.js';

/** Every entity the ORM knows; migrations are generated from this list. */
export const ENTITIES = [
  UserProfile,
  Remote,
  RemoteVersion,
  RemoteRollout,
  RemoteHealth,
  CanaryReporter,
  AuditEvent,
  KeycloakEventCursor,
  ErasedSubject,
  AccountAccess,
];
