import { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/create-test-app.js';
import { ENTITIES } from './entities.js';

describe('entities: each module registers its own, entities.ts lists them all', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await createTestApp({ OIDC_ISSUER_URL: 'http://127.0.0.1:9/realms/atrium' });
  });

  afterAll(async () => {
    await api?.close();
  });

  it('the running API knows exactly the entities the migrations are generated from', () => {
    const known = [...api.app.get(MikroORM).getMetadata().getAll().values()];
    const registered = known.filter((meta) => !meta.embeddable).map((meta) => meta.className);
    const listed = ENTITIES.map((entity) => entity.meta.className);
    expect(registered.sort()).toEqual(listed.sort());
    expect(new Set(listed).size).toBe(listed.length);
    expect(new Set(ENTITIES).size).toBe(ENTITIES.length);
  });
});
