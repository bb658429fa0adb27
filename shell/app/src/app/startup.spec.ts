// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RemoteCatalogue } from '../remote-loading/catalogue/remote-catalogue';
import { startUp, type StartupState } from './startup';

const config = {
  oidc: { authority: 'http://localhost:8080/realms/atrium', clientId: 'atrium-shell' },
  apiBaseUrl: 'http://localhost:3000',
};

function fakeCatalogue() {
  return {
    recall: vi.fn(),
    forget: vi.fn(),
    requestEarly: vi.fn(() => ({ sent: Promise.resolve(), remotes: Promise.resolve(undefined) })),
  };
}

/** Resolves with the first state `startup` reaches other than loading. */
function settled(startup: ReturnType<typeof startUp>): Promise<StartupState> {
  return new Promise((resolve) => {
    const check = () => {
      const state = startup.getSnapshot();
      if (state.status !== 'loading') resolve(state);
    };
    startup.subscribe(check);
    check();
  });
}

afterEach(() => vi.restoreAllMocks());

describe('startUp', () => {
  it('recalls the last list at once, then reads the config, makes its OIDC client and asks for the list early', async () => {
    const fetch = vi.spyOn(globalThis, 'fetch').mockResolvedValue(Response.json(config));
    const catalogue = fakeCatalogue();

    const startup = startUp(catalogue as unknown as RemoteCatalogue);

    expect(startup.getSnapshot()).toEqual({ status: 'loading' });
    expect(catalogue.recall).toHaveBeenCalledOnce();
    const state = await settled(startup);
    expect(state).toMatchObject({ status: 'ready', config: { apiBaseUrl: 'http://localhost:3000' } });
    expect(fetch).toHaveBeenCalledOnce();
    expect(catalogue.requestEarly).toHaveBeenCalledExactlyOnceWith(
      state.status === 'ready' ? state.userManager : undefined,
      'http://localhost:3000',
      'http://localhost:3000/api/remotes',
    );
  });

  it('says why a config could not be read, and starts again on Retry', async () => {
    vi.spyOn(globalThis, 'fetch')
      .mockResolvedValueOnce(Response.json({ oidc: {} }))
      .mockResolvedValueOnce(Response.json(config));
    const startup = startUp(fakeCatalogue() as unknown as RemoteCatalogue);

    const failed = await settled(startup);
    expect(failed.status).toBe('failed');
    expect(failed.status === 'failed' && failed.error.problems).toEqual(
      expect.arrayContaining([expect.stringContaining('oidc.authority')]),
    );

    startup.retry();
    expect(startup.getSnapshot()).toEqual({ status: 'loading' });
    expect((await settled(startup)).status).toBe('ready');
  });
});
