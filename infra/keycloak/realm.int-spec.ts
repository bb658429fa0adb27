import { describe, expect, inject, it } from 'vitest';
import {
  generateDpopKeyPair,
  signInWithPassword,
  SignInError,
  tokenRequestProof,
} from './password-sign-in.ts';

const issuer = inject('oidcIssuerUrl');
const tokenEndpoint = `${issuer}/protocol/openid-connect/token`;

function decodeJwt(jwt: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header = '', payload = ''] = jwt.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>,
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>,
  };
}

async function postForm(url: string, form: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', body: new URLSearchParams(form) });
}

describe('the atrium realm on a real Keycloak', () => {
  it('publishes its discovery document under the issuer the platform expects', async () => {
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
      issuer: string;
    };
    expect(discovery.issuer).toBe(issuer);
  });

  it('signs alice in with code + PKCE straight back to the shell, with an RFC 9068 token for the API', async () => {
    const tokens = await signInWithPassword({ issuer, username: 'alice', password: 'alice' });
    const { header, payload } = decodeJwt(tokens.access_token);
    expect(header.typ).toBe('at+jwt');
    expect([payload.aud].flat()).toContain('atrium-api');
    expect(payload).toMatchObject({
      iss: issuer,
      azp: 'atrium-shell',
      client_id: 'atrium-shell',
      preferred_username: 'alice',
      email: 'alice@atrium.test',
      name: 'Alice Liddell',
      given_name: 'Alice',
      realm_access: { roles: ['atrium-user'] },
    });
    expect(typeof payload.sub).toBe('string');
    expect(tokens.refresh_token).toBeTruthy();
  });

  it("binds atrium-shell's tokens to the key of the DPoP proof it redeemed the code with", async () => {
    const tokens = await signInWithPassword({ issuer, username: 'alice', password: 'alice' });
    expect(tokens.token_type).toBe('DPoP');
    expect(decodeJwt(tokens.access_token).payload.cnf).toMatchObject({ jkt: tokens.dpop.jkt });
  });

  it('refuses to redeem an atrium-shell code without a DPoP proof', async () => {
    const attempt = signInWithPassword({ issuer, username: 'alice', password: 'alice', dpop: false });
    await expect(attempt).rejects.toMatchObject({ page: 'token' });
  });

  it('gives ada both Atrium roles and nothing else from the realm', async () => {
    const tokens = await signInWithPassword({ issuer, username: 'ada', password: 'ada' });
    const roles = (decodeJwt(tokens.access_token).payload.realm_access as { roles: string[] }).roles;
    expect([...roles].sort()).toEqual(['atrium-admin', 'atrium-user']);
  });

  it('shows the login form again for a wrong password', async () => {
    const attempt = signInWithPassword({ issuer, username: 'ada', password: 'not-her-password' });
    await expect(attempt).rejects.toBeInstanceOf(SignInError);
    await expect(attempt).rejects.toMatchObject({ page: 'login' });
  });

  it('refuses the password grant and an authorization request without PKCE', async () => {
    // With a DPoP proof, so that the refusal is about the grant, not the missing proof.
    const passwordGrant = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: { dpop: await tokenRequestProof(await generateDpopKeyPair(), tokenEndpoint) },
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: 'atrium-shell',
        username: 'alice',
        password: 'alice',
      }),
    });
    expect(passwordGrant.ok).toBe(false);
    expect(((await passwordGrant.json()) as { error: string }).error).toBe('unauthorized_client');

    const authorize = new URL(`${issuer}/protocol/openid-connect/auth`);
    authorize.search = new URLSearchParams({
      client_id: 'atrium-shell',
      response_type: 'code',
      scope: 'openid',
      redirect_uri: 'http://localhost:4000/auth/callback',
    }).toString();
    const response = await fetch(authorize, { redirect: 'manual' });
    expect(response.headers.get('location')).toContain('error=invalid_request');
  });

  it('issues the deployer a client-credentials token for the API carrying remote-publisher', async () => {
    const response = await postForm(tokenEndpoint, {
      grant_type: 'client_credentials',
      client_id: 'atrium-deployer',
      client_secret: process.env.ATRIUM_DEPLOYER_SECRET ?? 'atrium-deployer-dev-secret',
    });
    expect(response.status).toBe(200);
    const { access_token: accessToken } = (await response.json()) as { access_token: string };
    const { header, payload } = decodeJwt(accessToken);
    expect(header.typ).toBe('at+jwt');
    expect([payload.aud].flat()).toContain('atrium-api');
    expect(payload).toMatchObject({
      client_id: 'atrium-deployer',
      realm_access: { roles: ['remote-publisher'] },
    });
  });
});
