// @vitest-environment happy-dom
import { Link, useAtrium, useLocationPath } from '@atrium/sdk';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderFeature, TEST_USER } from './index';

afterEach(cleanup);

function WhoAmI() {
  const { user, theme, setTheme } = useAtrium();
  const location = useLocationPath();
  return (
    <>
      <p data-testid="who">
        {user.name} ({user.roles.join(', ')}) at {location} in {theme}
      </p>
      <Link to="/admin/audit">Audit log</Link>
      <button type="button" onClick={() => setTheme('dark')}>
        Dark
      </button>
    </>
  );
}

describe('renderFeature', () => {
  it('renders inside a signed-in context with the test person by default', () => {
    renderFeature(<WhoAmI />);
    expect(screen.getByTestId('who').textContent).toBe(`${TEST_USER.name} (atrium-user) at / in system`);
  });

  it('takes the person, roles and location, and follows navigation and theme changes', () => {
    const view = renderFeature(<WhoAmI />, {
      user: { name: 'Ada Lovelace' },
      roles: ['atrium-admin'],
      location: '/admin',
    });
    expect(screen.getByTestId('who').textContent).toBe('Ada Lovelace (atrium-admin) at /admin in system');
    fireEvent.click(screen.getByRole('link', { name: 'Audit log' }));
    fireEvent.click(screen.getByRole('button', { name: 'Dark' }));
    expect(screen.getByTestId('who').textContent).toBe('Ada Lovelace (atrium-admin) at /admin/audit in dark');
    expect(view.navigations).toEqual(['/admin/audit']);
    expect(view.themes).toEqual(['dark']);
  });

  it('keeps the path as the location and the query string in the page address, as the shell does', () => {
    const view = renderFeature(<WhoAmI />, { location: '/admin/audit?actor=ada' });
    expect(screen.getByTestId('who').textContent).toContain('at /admin/audit in');
    expect(window.location.pathname).toBe('/admin/audit');
    expect(window.location.search).toBe('?actor=ada');
    fireEvent.click(screen.getByRole('link', { name: 'Audit log' }));
    expect(window.location.search).toBe('');
    expect(view.navigations).toEqual(['/admin/audit']);
  });
});
