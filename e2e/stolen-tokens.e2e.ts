import type { Page } from '@playwright/test';
import { expect, test } from '@atrium/test-support/journey-test';
import { createHash, randomBytes } from 'node:crypto';
import { API_URL, ISSUER, TOKEN_ENDPOINT } from '@atrium/test-support/addresses';
import { createDpopKey } from '@atrium/test-support/dpop';
import { openAs } from '@atrium/test-support/journeys';
import { claimsOf, redeemRefreshToken } from '@atrium/test-support/keycloak';
import { nextRenewal, redeemInPage, storedSession } from '@atrium/test-support/page-session';
import { expectAccessible } from '@atrium/test-support/accessibility';

/** The person keeps working: a preference saved through the API (a write, then the page reads it back). */
async function saveTheme(page: Page, theme: 'Light' | 'Dark'): Promise<void> {
  await page.getByRole('group', { name: 'Theme' }).getByLabel(theme).check();
  await page.getByRole('button', { name: 'Save preferences' }).click();
  await expect(page.getByRole('status').filter({ hasText: /preferences saved/i })).toBeVisible();
}

test('a refresh token copied out of the page is refused elsewhere and once spent, while the person keeps working', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await openAs(page, '/profile', 'alice');
  await expect(page.getByTestId('profile-email')).toHaveText('alice@atrium.test');
  await expectAccessible(page, 'profile');

  // Code in the page reads the session out of storage and sends it home.
  const stolen = await storedSession(page);
  expect(stolen.token_type).toBe('DPoP');
  expect(claimsOf(stolen.access_token).cnf, 'the access token is bound to the browser key').toMatchObject({
    jkt: expect.any(String),
  });

  // From another machine, without the browser's key: no proof, then a proof signed by a key of its own.
  const withoutProof = await redeemRefreshToken(stolen.refresh_token);
  expect(withoutProof.status).toBe(400);
  expect(withoutProof.body.access_token).toBeUndefined();
  const attacker = await createDpopKey();
  const withOwnKey = await redeemRefreshToken(
    stolen.refresh_token,
    await attacker.proof('POST', TOKEN_ENDPOINT),
  );
  expect(withOwnKey.status).toBe(400);
  expect(withOwnKey.body.access_token).toBeUndefined();
  // Refused for the reasons that matter (Keycloak 26.7's wording): no proof, then the wrong key.
  expect(withoutProof.body).toMatchObject({
    error: 'invalid_request',
    error_description: 'DPoP proof is missing',
  });
  expect(withOwnKey.body).toMatchObject({
    error: 'invalid_grant',
    error_description: "DPoP confirmation doesn't match DPoP proof",
  });

  // The person never noticed: the page renews with the same refresh token and saves through the API.
  const renewed = await nextRenewal(page, stolen);
  await saveTheme(page, 'Dark');

  // Even signed with the page's own key, the refresh token the page has already redeemed is worth nothing.
  const reused = await redeemInPage(page, stolen.refresh_token);
  expect(reused.status).toBe(400);
  expect(reused.body).toMatchObject({
    error: 'invalid_grant',
    error_description: 'Maximum allowed refresh token reuse exceeded',
  });
  expect(reused.body.access_token).toBeUndefined();

  // ... and the person still works, through the next renewal too.
  await nextRenewal(page, renewed);
  await saveTheme(page, 'Light');
  await page.reload();
  await expect(page.getByTestId('profile-email')).toHaveText('alice@atrium.test');
});

/**
 * An attacker's script runs an authorization request of its own in the signed-in browser (Keycloak's session
 * cookie makes it silent) and reads what comes back at the shell's callback.
 */
async function silentAuthorization(page: Page, scope: string) {
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${ISSUER}/protocol/openid-connect/auth`);
  authorize.search = new URLSearchParams({
    client_id: 'atrium-shell',
    response_type: 'code',
    scope,
    redirect_uri: 'http://localhost:4000/auth/callback',
    state: randomBytes(16).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    prompt: 'none',
  }).toString();
  const attackerTab = await page.context().newPage();
  try {
    const callbackRequest = attackerTab.waitForRequest(
      (request) => new URL(request.url()).pathname === '/auth/callback',
    );
    await attackerTab.goto(authorize.toString());
    // (The shell at the callback has no sign-in of its own to finish there; the attacker does not need it.)
    return { answer: new URL((await callbackRequest).url()).searchParams, verifier };
  } finally {
    await attackerTab.close();
  }
}

test('the shell client gets no offline token, even when code in the page asks for one', async ({ page }) => {
  await openAs(page, '/profile', 'alice');
  await expect(page.getByTestId('profile-email')).toHaveText('alice@atrium.test');
  await expectAccessible(page, 'profile');

  const offline = await silentAuthorization(page, 'openid offline_access');
  expect(offline.answer.get('error'), offline.answer.toString()).toBe('invalid_scope');
  expect(offline.answer.get('code')).toBeNull();

  // The same script without offline_access does get a code, and redeems it with a key of its own: DPoP cannot
  // stop a script that runs its own flow. What it gets is an ordinary refresh token, which rotates, dies with
  // the Keycloak session and with sign-out.
  const online = await silentAuthorization(page, 'openid');
  expect(online.answer.get('code'), online.answer.toString()).toBeTruthy();
  const attacker = await createDpopKey();
  const response = await fetch(TOKEN_ENDPOINT, {
    method: 'POST',
    headers: { DPoP: await attacker.proof('POST', TOKEN_ENDPOINT) },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: 'atrium-shell',
      code: online.answer.get('code') ?? '',
      code_verifier: online.verifier,
      redirect_uri: 'http://localhost:4000/auth/callback',
    }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(String(body.scope).split(' ')).not.toContain('offline_access');
  expect(claimsOf(String(body.refresh_token)).typ).toBe('Refresh');
});

test('an access token copied out of the page is refused by the API from elsewhere, while the page loads data', async ({
  page,
}) => {
  await openAs(page, '/profile', 'alice');
  await expect(page.getByTestId('profile-email')).toHaveText('alice@atrium.test');
  await expectAccessible(page, 'profile');
  const stolen = await storedSession(page);
  const url = `${API_URL}/api/me`;

  // As a bearer token, the way a token is normally replayed.
  const asBearer = await fetch(url, { headers: { Authorization: `Bearer ${stolen.access_token}` } });
  expect(asBearer.status).toBe(401);
  expect(await asBearer.json()).toMatchObject({ code: 'dpop_required' });
  // As a DPoP token with a well-formed proof for this very request, signed by a key of the attacker's own.
  const attacker = await createDpopKey();
  const withForgedProof = await fetch(url, {
    headers: {
      Authorization: `DPoP ${stolen.access_token}`,
      DPoP: await attacker.proof('GET', url, stolen.access_token),
    },
  });
  expect(withForgedProof.status).toBe(401);
  // Refused for the key, not for a malformed proof: the proof is right in every other respect.
  expect(await withForgedProof.json()).toMatchObject({ code: 'invalid_dpop_proof' });
  expect(withForgedProof.headers.get('WWW-Authenticate')).toMatch(/error="invalid_dpop_proof".*another key/);

  // The page, holding the key, still reads and writes through the API with the same token.
  await page.reload();
  await expect(page.getByTestId('profile-email')).toHaveText('alice@atrium.test');
  await saveTheme(page, 'Dark');
});
