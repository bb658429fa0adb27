import { Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { AuditModule } from '../audit/index.js';
import { AccountAccess } from './account-access.entity.js';
import { AccountAccessService } from './account-access.service.js';
import { AccountController } from './account.controller.js';
import { AccountService } from './account.service.js';
import { KeycloakAccountClient } from './keycloak-account.client.js';
import { KeycloakAdminClient } from './keycloak-admin.client.js';
import { KeycloakEventsPoller } from './keycloak-events.poller.js';
import { ErasedSubject } from './erased-subject.entity.js';
import { KeycloakEventCursor } from './keycloak-event-cursor.entity.js';
import { SubjectErasure } from './subject-erasure.js';

/** The entities this module keeps: registered with the ORM here, listed for migrations in src/entities.ts. */
export const ACCOUNT_ENTITIES = [KeycloakEventCursor, ErasedSubject, AccountAccess];

/**
 * The person's own account at Keycloak (services/api/src/account), Keycloak's events in the audit log, and the
 * erasure of a person Keycloak deleted (SubjectErasure, which the profile's writes also consult, and to which
 * the profile module hands the removal of the profile).
 */
@Module({
  imports: [MikroOrmModule.forFeature(ACCOUNT_ENTITIES), AuditModule],
  controllers: [AccountController],
  providers: [
    AccountService,
    AccountAccessService,
    KeycloakAccountClient,
    KeycloakAdminClient,
    KeycloakEventsPoller,
    SubjectErasure,
  ],
  exports: [KeycloakEventsPoller, KeycloakAdminClient, SubjectErasure],
})
export class AccountModule {}
