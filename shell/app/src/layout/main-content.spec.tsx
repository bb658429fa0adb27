// @vitest-environment happy-dom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { MainContent } from './main-content';

afterEach(cleanup);

describe('MainContent', () => {
  it('leaves focus alone on the first page and moves it to <main> after each navigation', () => {
    const location = memoryLocation({ path: '/' });
    render(
      <Router hook={location.hook}>
        <button type="button">Profile</button>
        <MainContent>
          <h1>Home</h1>
        </MainContent>
      </Router>,
    );
    const link = screen.getByRole('button', { name: 'Profile' });
    link.focus();
    // The first page: focus stays where the browser put it (the skip link is the first Tab stop).
    expect(document.activeElement).toBe(link);

    act(() => location.navigate('/profile'));
    expect(document.activeElement).toBe(screen.getByRole('main'));
    // It takes focus from script only: Tab does not stop on it.
    expect(screen.getByRole('main').tabIndex).toBe(-1);

    link.focus();
    act(() => location.navigate('/admin'));
    expect(document.activeElement).toBe(screen.getByRole('main'));
  });
});
