// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { Button } from './button';
import { useReturnFocus } from './focus';

afterEach(cleanup);

function Panel({ onClose }: { onClose: () => void }) {
  useReturnFocus();
  return (
    <div>
      <input aria-label="Inside" autoFocus />
      <Button onClick={onClose}>Close</Button>
    </div>
  );
}

/**
 * A control that opens the panel; with `removeOpener` it goes away while the panel is open, with
 * `disableOpener` it is disabled once the panel closed (what it does can be done only once).
 */
function Opener({ removeOpener = false, disableOpener = false }) {
  const [open, setOpen] = useState(false);
  const [closed, setClosed] = useState(false);
  return (
    <>
      {!(open && removeOpener) && (
        <Button disabled={closed && disableOpener} onClick={() => setOpen(true)}>
          Open
        </Button>
      )}
      {open && (
        <Panel
          onClose={() => {
            setOpen(false);
            setClosed(true);
          }}
        />
      )}
    </>
  );
}

describe('useReturnFocus', () => {
  it('gives focus back to the control that opened the panel when it closes', () => {
    render(<Opener />);
    const open = screen.getByRole('button', { name: 'Open' });
    open.focus();
    fireEvent.click(open);
    // The panel's own autoFocus moved focus in; the opener was read before that.
    expect(document.activeElement).toBe(screen.getByLabelText('Inside'));
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Open' }));
  });

  it('leaves focus alone when the opener has left the page or is disabled', () => {
    for (const props of [{ removeOpener: true }, { disableOpener: true }]) {
      render(<Opener {...props} />);
      screen.getByRole('button', { name: 'Open' }).focus();
      fireEvent.click(screen.getByRole('button', { name: 'Open' }));
      const close = screen.getByRole('button', { name: 'Close' });
      close.focus();
      fireEvent.click(close);
      expect(screen.queryByRole('button', { name: 'Close' })).toBeNull();
      // Nothing was focused: the screen moves focus to the outcome of what removed the opener.
      expect(document.activeElement, JSON.stringify(props)).not.toBe(
        screen.getByRole('button', { name: 'Open' }),
      );
      cleanup();
    }
  });
});
