// The auth module's public surface: other modules and the app import it from here, nothing else of auth/
// (.dependency-cruiser.cjs, api-module-public-file).
export {
  type AccessTokenClaims,
  type AuthenticatedUser,
  MAX_EMAIL_LENGTH,
  MAX_NAME_LENGTH,
  MAX_SUBJECT_LENGTH,
  toAuthenticatedUser,
} from './access-token.js';
export * from './auth.errors.js';
export { AUTH_ENTITIES, AuthModule } from './auth.module.js';
export { CurrentUser } from './current-user.decorator.js';
export { JwtAuthGuard } from './jwt-auth.guard.js';
export { requirePersonalSession } from './personal-session.js';
export { Public } from './public.decorator.js';
export { ADMIN_ROLE, DEVELOPER_ROLE, PUBLISHER_ROLE } from './role-names.js';
export { Roles } from './roles.decorator.js';
export { SigningKeySource } from './signing-key-source.js';
