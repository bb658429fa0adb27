export { ACCOUNT_ACTIONS, AccountActionsProvider, useAccountActions } from './account-actions';
export type {
  AccountAction,
  AccountActionResult,
  AccountActions,
  AccountActionStatus,
} from './account-actions';
export type {
  AccountActivity,
  AccountDeletionRequest,
  AccountSession,
  AccountSessions,
  SecurityEvent,
  SecurityEventType,
  SignedOutSessions,
} from './account';
export { createApiClient } from './api-client';
export type {
  ApiAuthorization,
  ApiClient,
  ApiClientOptions,
  ApiRequestOptions,
  ApiRequestTarget,
} from './api-client';
export { ApiAuthorizationError, ApiForeignOriginError, ApiNetworkError, ApiProblemError } from './api-errors';
export type { ProblemDocument, ProblemFieldError } from './api-errors';
export { AtriumContext, AtriumProvider, useApi, useAtrium } from './atrium-context';
export type { AtriumContextValue, AtriumProviderProps } from './atrium-context';
export { FEATURE_MODULE } from './contract';
export type { AtriumUser, FeatureProps, RemoteModule } from './contract';
export { isThemePreference, THEME_PREFERENCES } from './me';
export type { MeDocument, Preferences, ThemePreference } from './me';
export { Link, useLocationPath, useNavigate } from './navigation';
export type { AtriumNavigate, LinkProps, NavigateOptions } from './navigation';
export type {
  AdminRemotesDocument,
  AuditEntry,
  AuditPage,
  CreateRemoteRequest,
  RemoteDescriptor,
  RemoteDetail,
  RemotesDocument,
  UpdateRemoteRequest,
  VersionDocument,
} from './registry';
export { applyTheme, THEME_ATTRIBUTE } from './theme';
