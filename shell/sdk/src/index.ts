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
  HealthPoint,
  RemoteDescriptor,
  RemoteHealthDocument,
  RemoteDetail,
  RemotesDocument,
  RolloutDocument,
  UpdateRemoteRequest,
  VersionDocument,
} from './registry';
export { applyTheme, THEME_ATTRIBUTE } from './theme';
