// The audit module's public surface: other modules and the app import it from here, nothing else of audit/
// (.dependency-cruiser.cjs, api-module-public-file).
export { AuditEvent } from './audit-event.entity.js';
export { changedFields } from './changed-fields.js';
export { AUDIT_ENTITIES, AuditModule } from './audit.module.js';
export { type AuditActor, type AuditRecord, AuditService } from './audit.service.js';
export type { KeycloakAction } from './audit.schemas.js';
