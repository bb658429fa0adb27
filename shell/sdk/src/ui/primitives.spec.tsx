// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { Alert } from './alert';
import { Button } from './button';
import { ChoiceField, Field } from './field';
import { Page } from './page';

afterEach(cleanup);

/** The text a screen reader reads as the element's description (its aria-describedby targets). */
function description(element: HTMLElement): string {
  return (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');
}

describe('Button', () => {
  it('is a button, of type button unless told otherwise', () => {
    render(<Button>Save</Button>);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Save' }).type).toBe('button');
  });

  it('while busy says so, keeps focus and ignores clicks', () => {
    let clicks = 0;
    render(
      <Button busy busyLabel="Saving…" onClick={() => (clicks += 1)}>
        Save
      </Button>,
    );
    const button = screen.getByRole('button', { name: 'Saving…' });
    expect(button.getAttribute('aria-busy')).toBe('true');
    expect(button.getAttribute('aria-disabled')).toBe('true');
    button.focus();
    expect(document.activeElement).toBe(button);
    fireEvent.click(button);
    expect(clicks).toBe(0);
  });

  it('does not submit its form while busy', () => {
    let submits = 0;
    render(
      <form
        onSubmit={(event) => {
          event.preventDefault();
          submits += 1;
        }}
      >
        <Button type="submit" busy>
          Save
        </Button>
      </form>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(submits).toBe(0);
  });
});

describe('Field', () => {
  it('labels its input and ties the hint to it', () => {
    render(<Field label="Path" name="path" hint="Route in the shell." defaultValue="/x" />);
    const input = screen.getByRole('textbox', { name: 'Path' });
    expect(description(input)).toBe('Route in the shell.');
    expect(input.getAttribute('aria-invalid')).toBeNull();
  });

  it('marks the input invalid and reads the inline error with it', () => {
    render(<Field label="Path" name="path" hint="Route in the shell." error="must start with /" />);
    const input = screen.getByRole('textbox', { name: 'Path' });
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(description(input)).toBe('Route in the shell. must start with /');
    expect(screen.getByTestId('error-path').textContent).toBe('must start with /');
  });
});

describe('ChoiceField', () => {
  function Theme({ error }: { error?: string }) {
    const [value, setValue] = useState<'light' | 'dark'>('light');
    return (
      <ChoiceField
        legend="Theme"
        name="theme"
        value={value}
        onChange={setValue}
        error={error}
        options={[
          { value: 'light', label: 'Light' },
          { value: 'dark', label: 'Dark' },
        ]}
      />
    );
  }

  it('is a group of radio buttons named by its legend', () => {
    render(<Theme />);
    const group = screen.getByRole('group', { name: 'Theme' });
    fireEvent.click(screen.getByRole('radio', { name: 'Dark' }));
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'Dark' }).checked).toBe(true);
    expect(group.getAttribute('aria-invalid')).toBeNull();
  });

  it('ties its error to the group', () => {
    render(<Theme error="must be one of light, dark" />);
    const group = screen.getByRole('group', { name: 'Theme' });
    expect(group.getAttribute('aria-invalid')).toBe('true');
    expect(description(group)).toBe('must be one of light, dark');
  });
});

describe('Alert', () => {
  it('announces an error at once and offers Retry', () => {
    let retries = 0;
    render(<Alert onRetry={() => (retries += 1)}>The registry could not be loaded.</Alert>);
    expect(screen.getByRole('alert').textContent).toContain('The registry could not be loaded.');
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(retries).toBe(1);
  });

  it('announces success, notes and loading politely, loading as busy', () => {
    render(
      <>
        <Alert tone="success">Saved</Alert>
        <Alert tone="loading">Loading…</Alert>
      </>,
    );
    const [saved, loading] = screen.getAllByRole('status');
    expect(saved!.textContent).toBe('Saved');
    expect(loading!.getAttribute('aria-busy')).toBe('true');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('can stay mounted empty, so that what is put in it later is announced', () => {
    const { rerender } = render(<Alert tone="success">{''}</Alert>);
    const region = screen.getByRole('status');
    expect(region.textContent).toBe('');
    rerender(<Alert tone="success">Saved</Alert>);
    expect(screen.getByRole('status')).toBe(region);
    expect(region.textContent).toBe('Saved');
  });

  it('as a panel standing for a whole view, titles it with a heading', () => {
    render(<Alert tone="info" variant="panel" title="You have been signed out" />);
    expect(screen.getByRole('status').querySelector('h2')?.textContent).toBe('You have been signed out');
    expect(screen.getByRole('heading', { name: 'You have been signed out' })).toBeTruthy();
  });

  it('sets the data attributes it is given on its element, nothing else', () => {
    render(
      <Alert tone="info" data-testid="result" data-status="cancelled">
        Nothing changed.
      </Alert>,
    );
    const shown = screen.getByTestId('result');
    expect(shown.getAttribute('role')).toBe('status');
    expect(shown.dataset['status']).toBe('cancelled');
  });

  it('takes focus when asked, so Retry is one Tab away', () => {
    render(<Alert title="Atrium is unavailable" autoFocus onRetry={() => undefined} />);
    expect(document.activeElement).toBe(screen.getByRole('alert'));
  });
});

describe('Page', () => {
  it('names the page with a level-1 heading and "<title> · Atrium" while mounted', () => {
    document.title = 'Atrium';
    const { unmount } = render(<Page title="Your account">…</Page>);
    expect(screen.getByRole('heading', { level: 1, name: 'Your account' })).toBeTruthy();
    expect(document.title).toBe('Your account · Atrium');
    unmount();
    expect(document.title).toBe('Atrium');
  });

  it('follows a change of route within a feature, and takes its own heading and document title', () => {
    document.title = 'Atrium';
    const { rerender } = render(
      <Page title="Registry console" documentTitle="Remotes · Registry console" heading="Console" />,
    );
    expect(document.title).toBe('Remotes · Registry console · Atrium');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Console');
    rerender(
      <Page title="Registry console" documentTitle="Audit log · Registry console" heading="Console" />,
    );
    expect(document.title).toBe('Audit log · Registry console · Atrium');
  });

  it('hands the title over when one page replaces another', () => {
    document.title = 'Atrium';
    const { rerender, unmount } = render(<Page key="a" title="Home" />);
    rerender(<Page key="b" title="Page not found" />);
    expect(document.title).toBe('Page not found · Atrium');
    unmount();
    expect(document.title).toBe('Atrium');
  });
});
