import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

function readAnswer(response: IncomingMessage): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (body += chunk));
    response.on('end', () =>
      resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body }),
    );
    response.on('error', reject);
  });
}

describe('graceful shutdown', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  let closed = false;

  beforeEach(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({ OIDC_ISSUER_URL: issuer.issuer });
    await api.waitForIssuer();
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    closed = false;
  });

  afterEach(async () => {
    if (!closed) await api.close();
    await issuer.close();
  });

  it('lets a request in flight finish, database write included, then closes its connection and resolves close()', async () => {
    const token = await issuer.mint();
    const { port } = api.app.getHttpServer().address() as AddressInfo;
    const body = JSON.stringify({ theme: 'dark' });
    // The body arrives in two parts, so the request is still in flight when shutdown starts.
    const client = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'PUT',
      path: '/api/me/preferences',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    });
    const answer = new Promise<Answer>((resolve, reject) => {
      client.on('response', (response) => resolve(readAnswer(response)));
      client.on('error', reject);
    });
    client.write(body.slice(0, 5));
    await sleep(100);

    let closeDone = false;
    const closing = api.close().then(() => (closeDone = true));
    closed = true;
    await sleep(200);
    expect(closeDone).toBe(false);

    client.end(body.slice(5));
    const { status, connection, body: text } = await answer;
    expect(status).toBe(200);
    // Ending the keep-alive connection with the answer is what lets close() finish now.
    expect(connection).toBe('close');
    expect(JSON.parse(text)).toMatchObject({ preferences: { theme: 'dark' } });
    await closing;
    expect(closeDone).toBe(true);
  });

  it('refuses new connections once shutdown has started', async () => {
    const { port } = api.app.getHttpServer().address() as AddressInfo;
    closed = true;
    await api.close();
    await expect(fetch(`http://127.0.0.1:${port}/api/health/live`)).rejects.toThrow();
  });
});
