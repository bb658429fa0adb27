import { Page } from '@atrium/sdk/ui';
import { Link } from 'wouter';

export function NotFoundPage() {
  return (
    <Page title="Page not found">
      <p>There is nothing at this address. It may have moved, or the feature may not be available to you.</p>
      <p>
        <Link href="/">Go to the home page</Link>
      </p>
    </Page>
  );
}
