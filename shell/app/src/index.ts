// The async boundary lets Module Federation negotiate shared singletons (react, @atrium/sdk) before any
// of them is evaluated.
void import('./bootstrap');
