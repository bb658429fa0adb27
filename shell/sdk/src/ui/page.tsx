import { useEffect, type ReactNode } from 'react';
import './ui.css';

/** What follows every page's own title in `document.title`. */
export const DOCUMENT_TITLE_SUFFIX = ' · Atrium';

/**
 * Sets `document.title` to "<title> · Atrium" while the component is mounted, and puts back the title it
 * found when it unmounts, so the browser's tab, history and a screen reader's "page changed" name the page.
 */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    const previous = document.title;
    document.title = `${title}${DOCUMENT_TITLE_SUFFIX}`;
    return () => {
      document.title = previous;
    };
  }, [title]);
}

/** Props of {@link Page}. */
export interface PageProps {
  /** The page's name: its `<h1>` and its document title. */
  readonly title: string;
  /** A different `<h1>` (e.g. "Welcome, Ada" on the page titled "Home"). */
  readonly heading?: ReactNode;
  /** A different document title (e.g. "Audit log · Registry console" under the heading "Registry console"). */
  readonly documentTitle?: string;
  readonly children?: ReactNode;
}

/**
 * One page of a feature (or of the shell): its heading, and `document.title` following the route. Render one
 * per route, at the top of what the route shows.
 */
export function Page({ title, heading, documentTitle, children }: PageProps) {
  useDocumentTitle(documentTitle ?? title);
  return (
    <div className="atrium-page">
      <h1 className="atrium-page__title">{heading ?? title}</h1>
      {children}
    </div>
  );
}
