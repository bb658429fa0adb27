// The unit tier's setup (vitest.config.ts): how long Testing Library's `waitFor` and `findBy*` keep trying before
// they fail. Their default, 1 s, is a wall-clock deadline in tests that otherwise wait on events: on a 2-core
// machine shared with a browser tier or builds, a chain of promises (a DPoP key, a token request to the
// in-process Keycloak stand-in, a React update) can take longer, and use-session-lifecycle.spec failed once under
// such load. They return as soon as the expectation holds, so a later deadline costs a passing test nothing; it
// stays under vitest's 5 s test timeout, so a test that would wait forever still fails with Testing Library's
// message naming what it waited for.
import { configure } from '@testing-library/dom';

configure({ asyncUtilTimeout: 4_000 });
