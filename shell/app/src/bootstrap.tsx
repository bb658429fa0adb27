import { applyTheme, isThemePreference } from '@atrium/sdk';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import './styles.css';

const cachedTheme = window.localStorage.getItem('atrium.theme');
applyTheme(isThemePreference(cachedTheme) ? cachedTheme : 'system');

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element');
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
