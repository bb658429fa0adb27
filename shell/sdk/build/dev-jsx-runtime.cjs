// The JSX runtime of a remote's dev build (`npm run dev`, see defineRemoteConfig): React's production runtime
// behind the development entry point the compiler calls (jsxDEV). A remote renders with the page's React, and the
// `npm start` shell runs React's production build, whose internals the development runtime cannot use (it asks
// them for each element's owner: "dispatcher.getOwner is not a function").
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS, like the runtime it wraps */
const production = require('atrium-jsx-production');

exports.Fragment = production.Fragment;
exports.jsx = production.jsx;
exports.jsxs = production.jsxs;
// jsxDEV(type, config, key, isStaticChildren, source, self): the production runtime needs the first three.
exports.jsxDEV = (type, config, key) => production.jsx(type, config, key);
