import type { ReactNode } from 'react';
import { Alert } from './alert';
import { describeApiError } from './describe-api-error';
import type { AsyncResource } from './resource';

/** Props of {@link ResourceView}. */
export interface ResourceViewProps<T> {
  readonly resource: AsyncResource<T>;
  /** Said while loading, e.g. `Loading your account…`. */
  readonly loading: string;
  /** What failed, leading the error sentence, e.g. `Your account could not be loaded`. */
  readonly failed: string;
  /** Renders the data once loaded. */
  readonly children: (data: T) => ReactNode;
}

/**
 * Renders a resource's three states the same way everywhere: a loading status, an error sentence from
 * {@link describeApiError} with Retry, or the data.
 */
export function ResourceView<T>({ resource, loading, failed, children }: ResourceViewProps<T>) {
  if (resource.status === 'loading') return <Alert tone="loading">{loading}</Alert>;
  if (resource.status === 'failed') {
    return <Alert onRetry={resource.refetch}>{describeApiError(resource.error, failed)}</Alert>;
  }
  return children(resource.data);
}
