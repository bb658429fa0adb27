import { useEffect, useRef, type ReactNode } from 'react';
import { useLocation } from 'wouter';

/** `<main>` that takes focus after each navigation, so screen readers start at the new page. */
export function MainContent({ children }: { children: ReactNode }) {
  const [location] = useLocation();
  const mainRef = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    mainRef.current?.focus();
  }, [location]);
  return (
    <main id="main" ref={mainRef} tabIndex={-1} className="main">
      {children}
    </main>
  );
}
