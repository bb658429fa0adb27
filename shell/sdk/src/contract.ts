import type { ComponentType } from 'react';

/**
 * The signed-in person, as the shell learned it from the identity provider's tokens.
 */
export interface AtriumUser {
  /** Stable subject identifier from the identity provider (never reused, never changes). */
  readonly sub: string;
  /** Login name (`preferred_username`). */
  readonly username: string;
  /** Display name; falls back to the username when the provider has none. */
  readonly name: string;
  /** E-mail address, or `undefined` when the provider did not release one. */
  readonly email: string | undefined;
  /** Realm roles granted to the person. */
  readonly roles: readonly string[];
}

/**
 * Props the shell passes to every remote's `Feature` component.
 */
export interface FeatureProps {
  /**
   * The URL path the shell mounted the feature at (e.g. `/profile`). A remote that has sub-pages builds
   * its links under it; it must not assume where it is mounted.
   */
  readonly basePath: string;
}

/**
 * What a remote's single exposed module (`./Feature`) must export. Named export, no default export:
 *
 * ```ts
 * // remotes/<name>/src/feature.tsx
 * export const Feature: RemoteModule['Feature'] = (props) => { ... };
 * ```
 */
export interface RemoteModule {
  /** The feature's root component, rendered by the shell inside an error boundary. */
  readonly Feature: ComponentType<FeatureProps>;
}

/**
 * The module every remote exposes, loaded by the shell as `<remote name>/Feature`.
 */
export const FEATURE_MODULE = './Feature';
