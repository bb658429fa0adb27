import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { AccountController } from './account.controller.js';
import { AccountService } from './account.service.js';
import { KeycloakAdminClient } from './keycloak-admin.client.js';
import { KeycloakEventsPoller } from './keycloak-events.poller.js';
import { SubjectErasure } from './subject-erasure.js';

/** The person's own account at Keycloak (services/api/src/account) and Keycloak's events in the audit log. */
@Module({
  imports: [AuditModule],
  controllers: [AccountController],
  providers: [AccountService, KeycloakAdminClient, KeycloakEventsPoller, SubjectErasure],
  exports: [KeycloakEventsPoller, KeycloakAdminClient, SubjectErasure],
})
export class AccountModule {}
