import { useLocationPath, useNavigate } from '@atrium/sdk';
import { useCallback, useEffect, useState } from 'react';

/**
 * The query string of the page's address (without `?`) and a way to change it, so that a view can be shared
 * and reloaded. The shell's router matches paths only, so the address is read from `window.location` and
 * written through the shell's `navigate` (a new history entry); Back and Forward change it too.
 */
export function useQueryString(): readonly [string, (query: string) => void] {
  const path = useLocationPath();
  const navigate = useNavigate();
  const [query, setQuery] = useState(() => window.location.search.slice(1));
  useEffect(() => {
    const read = () => setQuery(window.location.search.slice(1));
    window.addEventListener('popstate', read);
    return () => window.removeEventListener('popstate', read);
  }, []);
  const change = useCallback(
    (next: string) => {
      navigate(next === '' ? path : `${path}?${next}`);
      setQuery(next);
    },
    [navigate, path],
  );
  return [query, change];
}
