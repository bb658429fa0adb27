import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { useAtrium, type AtriumNavigate } from './atrium-context';

/**
 * Returns the shell's {@link AtriumNavigate} function.
 *
 * ```tsx
 * const navigate = useNavigate();
 * navigate(`${basePath}/audit`);
 * ```
 */
export function useNavigate(): AtriumNavigate {
  return useAtrium().navigate;
}

/**
 * Returns the current in-app path (e.g. `/admin/audit`), re-rendering when it changes.
 */
export function useLocationPath(): string {
  return useAtrium().location;
}

/**
 * Props of {@link Link}: every anchor attribute except `href`, plus the target path.
 */
export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  /** Absolute in-app path, e.g. `/profile`. */
  readonly to: string;
  /** Replace the current history entry instead of adding one. */
  readonly replace?: boolean;
}

/**
 * An in-app link: a real `<a href>` (so it works with the keyboard, middle-click and "open in new tab")
 * whose plain clicks navigate through the shell without reloading the page.
 */
export function Link({ to, replace, onClick, ...anchor }: LinkProps) {
  const { navigate } = useAtrium();
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || !isPlainLeftClick(event) || (anchor.target ?? '_self') !== '_self') return;
    event.preventDefault();
    navigate(to, replace === undefined ? undefined : { replace });
  };
  return <a {...anchor} href={to} onClick={handleClick} />;
}

function isPlainLeftClick(event: MouseEvent): boolean {
  return event.button === 0 && !event.metaKey && !event.altKey && !event.ctrlKey && !event.shiftKey;
}
