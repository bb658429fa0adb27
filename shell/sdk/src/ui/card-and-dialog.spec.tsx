// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { Card } from './card';
import { ConfirmDialog } from './confirm-dialog';

afterEach(cleanup);

describe('Card', () => {
  it('is a region named by its level-2 heading', () => {
    render(
      <Card heading="Signing in" data-testid="methods">
        <p>Password</p>
      </Card>,
    );
    const card = screen.getByRole('region', { name: 'Signing in' });
    expect(card.getAttribute('data-testid')).toBe('methods');
    expect(screen.getByRole('heading', { level: 2, name: 'Signing in' })).toBeTruthy();
    expect(card.textContent).toContain('Password');
  });

  it('lends its heading id to what inside is named by it, and keeps the screen\u2019s own classes', () => {
    render(
      <Card heading="Preferences" headingId="prefs" className="screen-grid">
        <form aria-labelledby="prefs" />
      </Card>,
    );
    expect(screen.getByRole('form', { name: 'Preferences' })).toBeTruthy();
    expect(screen.getByRole('region', { name: 'Preferences' }).className).toBe('atrium-card screen-grid');
  });
});

describe('ConfirmDialog', () => {
  const props = {
    title: 'Withdraw Profile 1.0.0?',
    message: 'Pages still using 1.0.0 stop within seconds.',
    confirmLabel: 'Withdraw 1.0.0',
    busyLabel: 'Withdrawing…',
  };

  it('is a dialog named by its title, with the confirm button focused', () => {
    render(<ConfirmDialog {...props} busy={false} onConfirm={() => {}} onCancel={() => {}} />);
    expect(screen.getByRole('dialog', { name: 'Withdraw Profile 1.0.0?' })).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Withdraw 1.0.0' }));
  });

  it('opens with focus on its field, and gives focus back to the control that opened it when it closes', () => {
    function Opener() {
      const [open, setOpen] = useState(false);
      return (
        <>
          <button type="button" onClick={() => setOpen(true)}>
            Withdraw…
          </button>
          {open && (
            <ConfirmDialog {...props} busy={false} onConfirm={() => {}} onCancel={() => setOpen(false)}>
              <input aria-label="Reason" />
            </ConfirmDialog>
          )}
        </>
      );
    }
    render(<Opener />);
    const opener = screen.getByRole('button', { name: 'Withdraw…' });
    opener.focus();
    fireEvent.click(opener);
    expect(document.activeElement).toBe(screen.getByLabelText('Reason'));
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });

  it('marks a destructive confirmation with the danger button', () => {
    render(<ConfirmDialog {...props} danger busy={false} onConfirm={() => {}} onCancel={() => {}} />);
    expect(screen.getByRole('button', { name: 'Withdraw 1.0.0' }).className).toContain(
      'atrium-button--danger',
    );
  });

  it('cancels on Escape, but not while the action runs', () => {
    let cancels = 0;
    const { rerender } = render(
      <ConfirmDialog {...props} busy onConfirm={() => {}} onCancel={() => (cancels += 1)} />,
    );
    const dialog = screen.getByRole('dialog');
    fireEvent(dialog, new Event('cancel', { cancelable: true }));
    expect(cancels).toBe(0);
    rerender(<ConfirmDialog {...props} busy={false} onConfirm={() => {}} onCancel={() => (cancels += 1)} />);
    fireEvent(dialog, new Event('cancel', { cancelable: true }));
    expect(cancels).toBe(1);
  });

  it('keeps the confirm button disabled until what it needs is filled in', () => {
    let confirms = 0;
    render(
      <ConfirmDialog
        {...props}
        canConfirm={false}
        busy={false}
        onConfirm={() => (confirms += 1)}
        onCancel={() => {}}
      >
        <input aria-label="Reason" />
      </ConfirmDialog>,
    );
    const confirm = screen.getByRole<HTMLButtonElement>('button', { name: 'Withdraw 1.0.0' });
    fireEvent.click(confirm);
    expect(confirms).toBe(0);
    expect(confirm.disabled).toBe(true);
  });
});
