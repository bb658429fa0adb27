// Stylesheets are bundled by rspack's native CSS support; importing one only adds it to the page.
declare module '*.css';

/** The release version this bundle was built as (package.json's, or the release CLI's `--version`). */
declare const __RELEASE_VERSION__: string;
