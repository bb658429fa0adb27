import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.js';
import { DpopProofVerifier } from './dpop-proof-verifier.js';
import {
  BatchedProofReplays,
  type RecordProofIds,
  type SharedProofReplays,
  storedProofId,
} from './shared-proof-replays.js';

/** A record as the database keeps it: ids written once, across every "replica" that shares it. */
function sharedRecord() {
  const written = new Set<string>();
  const statements: { ids: readonly string[]; expiresAt: number }[] = [];
  const record: RecordProofIds = async (ids, expiresAt) => {
    statements.push({ ids, expiresAt });
    await new Promise((resolve) => setTimeout(resolve, 5));
    return ids.filter((id) => !written.has(id) && written.add(id));
  };
  return { record, statements, written };
}

describe('BatchedProofReplays', () => {
  it('writes the ids asked for together in one statement, each kept for the window', async () => {
    const { record, statements } = sharedRecord();
    const replays = new BatchedProofReplays(record, 120_000, () => 1_000_000);
    const answers = await Promise.all(['k.a', 'k.b', 'k.c'].map((id) => replays.use(id)));
    expect(answers).toEqual([true, true, true]);
    expect(statements).toEqual([{ ids: ['k.a', 'k.b', 'k.c'].map(storedProofId), expiresAt: 1_120 }]);
  });

  it('refuses an id another replica recorded, and the second of two equal ids in one batch', async () => {
    const { record } = sharedRecord();
    const one = new BatchedProofReplays(record, 120_000);
    const other = new BatchedProofReplays(record, 120_000);
    expect(await one.use('k.replayed')).toBe(true);
    expect(await other.use('k.replayed')).toBe(false);
    expect(await Promise.all([other.use('k.twice'), other.use('k.twice')])).toEqual([true, false]);
  });

  it('runs at most two statements at once; what comes meanwhile goes in the next one', async () => {
    const { record, statements } = sharedRecord();
    const replays = new BatchedProofReplays(record, 120_000);
    const first = replays.use('k.1');
    await new Promise((resolve) => setImmediate(resolve));
    const second = replays.use('k.2');
    await new Promise((resolve) => setImmediate(resolve));
    const later = ['k.3', 'k.4', 'k.5'].map((id) => replays.use(id));
    expect(await Promise.all([first, second, ...later])).toEqual([true, true, true, true, true]);
    expect(statements.map((statement) => statement.ids.length)).toEqual([1, 1, 3]);
  });

  it("fails every request of a batch with the statement's error, and later batches still work", async () => {
    const unavailable = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    let fail = true;
    const replays = new BatchedProofReplays(
      (ids) => (fail ? Promise.reject(unavailable) : Promise.resolve(ids)),
      120_000,
    );
    const failed = [replays.use('k.a'), replays.use('k.b')];
    await expect(Promise.all(failed)).rejects.toBe(unavailable);
    await expect(failed[1]).rejects.toBe(unavailable);
    fail = false;
    expect(await replays.use('k.a')).toBe(true);
  });

  it('stores a fixed-size id that says nothing of the proof', () => {
    const long = `${'t'.repeat(43)}.${'j'.repeat(128)}`;
    expect(storedProofId(long)).toMatch(/^[\w-]{22}$/);
    expect(storedProofId(long)).not.toBe(storedProofId(`${long}x`));
  });
});

describe('DpopProofVerifier with a record shared by replicas', () => {
  const config = loadConfig({ NODE_ENV: 'development', API_PUBLIC_URL: 'http://127.0.0.1:3000' });
  const accessToken = 'header.payload.signature';
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' }) as JWK;

  /** A proof for GET /api/me as the browser makes it, and the thumbprint its token is bound to. */
  function proof() {
    const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
    const input = `${encode({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty, crv, x, y } })}.${encode({
      htm: 'GET',
      htu: 'http://127.0.0.1:3000/api/me',
      iat: Math.floor(Date.now() / 1000),
      jti: randomUUID(),
      ath: createHash('sha256').update(accessToken).digest('base64url'),
    })}`;
    const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
    return Promise.resolve(`${input}.${signature.toString('base64url')}`);
  }
  const expected = async () => ({
    method: 'GET',
    url: '/api/me',
    accessToken,
    jkt: await calculateJwkThumbprint({ kty, crv, x, y }),
  });

  it('refuses on one replica a proof another replica accepted, while fresh proofs keep working', async () => {
    const { record } = sharedRecord();
    const replicaA = new DpopProofVerifier(config, new BatchedProofReplays(record, 120_000));
    const replicaB = new DpopProofVerifier(config, new BatchedProofReplays(record, 120_000));
    const captured = await proof();
    await expect(replicaA.verify(captured, await expected())).resolves.toBeUndefined();
    await expect(replicaB.verify(captured, await expected())).rejects.toThrow(/already used \(jti\)/);
    await expect(replicaB.verify(await proof(), await expected())).resolves.toBeUndefined();
  });

  it('refuses a replay to the same replica from memory, without a write', async () => {
    const asked: string[] = [];
    const shared: SharedProofReplays = {
      use: (id) => {
        asked.push(id);
        return Promise.resolve(true);
      },
    };
    const replica = new DpopProofVerifier(config, shared);
    const captured = await proof();
    await replica.verify(captured, await expected());
    await expect(replica.verify(captured, await expected())).rejects.toThrow(/already used/);
    expect(asked).toHaveLength(1);
  });

  it('accepts no proof while the record cannot be written: the error goes to the caller', async () => {
    const unavailable = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const replica = new DpopProofVerifier(config, { use: () => Promise.reject(unavailable) });
    await expect(replica.verify(await proof(), await expected())).rejects.toBe(unavailable);
  });

  it('never asks the record about a proof that fails a check', async () => {
    let asked = 0;
    const replica = new DpopProofVerifier(config, {
      use: () => {
        asked += 1;
        return Promise.resolve(true);
      },
    });
    await expect(
      replica.verify(await proof(), { ...(await expected()), url: '/api/remotes' }),
    ).rejects.toThrow(/htu/);
    expect(asked).toBe(0);
  });
});
