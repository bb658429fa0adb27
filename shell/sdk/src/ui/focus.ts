import { useEffect, useState } from 'react';

/**
 * Gives keyboard focus back, when the component unmounts, to the element that had it when the component first
 * rendered: the control that opened a dialog or a panel gets focus again when it closes, so a keyboard or
 * screen reader user carries on where they were. Nothing happens if that element has left the page or is
 * disabled meanwhile (the action removed it): the screen then moves focus to the action's outcome itself (an
 * `Alert` with `autoFocus`).
 */
export function useReturnFocus(): void {
  // Read while rendering, before a child's `autoFocus` moves focus into the component.
  const [opener] = useState(() =>
    typeof document === 'undefined' ? null : (document.activeElement as HTMLElement | null),
  );
  useEffect(
    () => () => {
      if (opener === null || opener === document.body || !opener.isConnected) return;
      if (opener.matches(':disabled')) return;
      opener.focus();
    },
    [opener],
  );
}
