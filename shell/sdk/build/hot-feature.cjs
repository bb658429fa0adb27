/* global __webpack_require__ */
// A remote's `./Feature` in `npm run dev` (defineRemoteConfig wraps the real one, `atrium-remote-feature`).
// Fast Refresh needs a React development build whose refresh hooks were installed before react-dom started; the
// shell of `npm start` runs React's production build, where the refresh runtime can re-run a changed module but
// cannot make React render it. There, once a hot update is applied, this wrapper re-runs the remote's own modules
// (./src/…) and renders the new Feature: the page changes without a reload, and the remote's state starts afresh.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS, for module.hot and the module cache */
const { createElement, useEffect, useReducer } = require('react');

const source = require.resolveWeak('atrium-remote-feature');
let current = require('atrium-remote-feature');
const mounted = new Set();

/** Whether a React renderer on the page can take Fast Refresh updates (a development build). */
function reactRefreshes() {
  const hook = globalThis.__REACT_DEVTOOLS_GLOBAL_HOOK__;
  return [...(hook?.renderers?.values?.() ?? [])].some(
    (renderer) => typeof renderer.scheduleRefresh === 'function',
  );
}

if (module.hot) {
  // Changes that no component module takes itself (Fast Refresh boundaries) end here instead of being refused.
  module.hot.accept('atrium-remote-feature', () => undefined);
  let applied = false;
  module.hot.addStatusHandler((status) => {
    if (status === 'apply') applied = true;
    if (status !== 'idle' || !applied) return;
    applied = false;
    if (reactRefreshes()) return;
    for (const id of Object.keys(__webpack_require__.c)) {
      if (String(id).startsWith('./src/')) delete __webpack_require__.c[id];
    }
    current = __webpack_require__(source);
    for (const update of mounted) update();
  });
}

exports.Feature = function HotFeature(props) {
  const [, update] = useReducer((count) => count + 1, 0);
  useEffect(() => {
    mounted.add(update);
    return () => {
      mounted.delete(update);
    };
  }, []);
  return createElement(current.Feature, props);
};
