import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { AccountAccessService } from './account-access.service.js';
import { AccountController } from './account.controller.js';
import { AccountService } from './account.service.js';
import { KeycloakAccountClient } from './keycloak-account.client.js';
import { KeycloakAdminClient } from './keycloak-admin.client.js';
import { KeycloakEventsPoller } from './keycloak-events.poller.js';
import { SubjectErasure } from './subject-erasure.js';

/**
 * The person's own account at Keycloak (services/api/src/account), Keycloak's events in the audit log, and the
 * erasure of a person Keycloak deleted (SubjectErasure, which the profile's writes also consult).
 */
@Module({
  imports: [AuditModule],
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
