import { Link } from 'wouter';

export function NotFoundPage() {
  return (
    <>
      <h1>Page not found</h1>
      <p>There is nothing at this address. It may have moved, or the feature may not be available to you.</p>
      <p>
        <Link href="/">Go to the home page</Link>
      </p>
    </>
  );
}
