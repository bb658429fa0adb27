// What recording accepted DPoP proofs for every replica costs (docs/adr/0016-one-api-across-replicas.md): the
// built PostgresProofReplays against a real PostgreSQL, alone, as a busy replica calls it. Prints:
//   raw_verify_us               one node:crypto verify of a P-256 signature (the proof check's limit), for scale
//   shared_proof_cpu_us         this process's CPU µs per recorded proof, CONCURRENCY requests at once
//   shared_proof_ratio          shared_proof_cpu_us / raw_verify_us
//   shared_proof_wait_us        the median time a request waits for its proof to be recorded, CONCURRENCY at once
//   shared_proof_wait_single_us the same with one request at a time (one round trip, nothing to batch)
//   shared_proof_per_statement  proofs per INSERT, CONCURRENCY at once
//   shared_proof_per_second     proofs recorded per second, CONCURRENCY at once (the database on the same machine)
//   shared_proof_cpu_single_us  this process's CPU µs per recorded proof, one request at a time
//   BENCH_POSTGRES_URL=postgres://… node bench/shared-proof-cost.ts   (an empty database of its own; migrated here)
import { generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import { MikroORM } from '@mikro-orm/core';
import type * as Replays from '../src/auth/shared-proof-replays.ts';
import type * as Database from '../src/database/index.ts';

const { PostgresProofReplays } = (await import(
  new URL('../dist/auth/shared-proof-replays.js', import.meta.url).href
)) as typeof Replays;
const { migrateDatabase, ormOptions } = (await import(
  new URL('../dist/database/index.js', import.meta.url).href
)) as typeof Database;

const url = process.env['BENCH_POSTGRES_URL'];
if (!url) throw new Error('BENCH_POSTGRES_URL: an empty PostgreSQL database for this measurement');
const CONCURRENCY = Number(process.env['BENCH_CONNECTIONS'] ?? 16);
const WARM_UP = 2_000;
const MEASURED = 20_000;

const target = { driver: 'postgresql', url } as const;
await migrateDatabase(target);
const orm = await MikroORM.init({ ...ormOptions(target), allowGlobalContext: true, entities: [] });
const replays = new PostgresProofReplays(orm, 120_000);
// Counts the statements the batches send (a bench may look inside what it measures).
let statements = 0;
const insert = (replays as unknown as { batches: { record: (...args: unknown[]) => Promise<unknown> } })
  .batches;
const record = insert.record.bind(insert);
insert.record = (...args) => {
  statements += 1;
  return record(...args);
};

/** Records `count` fresh ids, `concurrency` at a time; returns each one's wait in µs. */
async function run(count: number, concurrency: number): Promise<number[]> {
  const waits: number[] = [];
  let issued = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (issued < count) {
        issued += 1;
        const started = process.hrtime.bigint();
        if (!(await replays.use(`thumbprint.${randomUUID()}`))) throw new Error('a fresh id was refused');
        waits.push(Number(process.hrtime.bigint() - started) / 1_000);
      }
    }),
  );
  return waits;
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

await run(WARM_UP, CONCURRENCY);
statements = 0;
const before = process.cpuUsage();
const startedAt = process.hrtime.bigint();
const waits = await run(MEASURED, CONCURRENCY);
const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
const used = process.cpuUsage(before);
const perStatement = MEASURED / statements;
// A fresh uuid per id costs the caller too; it is measured and left out.
const uuidBefore = process.cpuUsage();
for (let index = 0; index < MEASURED; index += 1) randomUUID();
const uuid = process.cpuUsage(uuidBefore);
const cpu = (used.user + used.system - uuid.user - uuid.system) / MEASURED;
const singleBefore = process.cpuUsage();
const single = await run(2_000, 1);
const singleUsed = process.cpuUsage(singleBefore);

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const input = Buffer.from('x'.repeat(600));
const signature = sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' });
const verifyBefore = process.cpuUsage();
for (let index = 0; index < 10_000; index += 1) {
  verify('sha256', input, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
}
const verified = process.cpuUsage(verifyBefore);
const rawVerify = (verified.user + verified.system) / 10_000;

console.log(`raw_verify_us=${rawVerify.toFixed(0)}`);
console.log(`shared_proof_cpu_us=${cpu.toFixed(1)}`);
console.log(`shared_proof_ratio=${(cpu / rawVerify).toFixed(2)}`);
console.log(`shared_proof_wait_us=${median(waits).toFixed(0)}`);
console.log(`shared_proof_wait_single_us=${median(single).toFixed(0)}`);
console.log(`shared_proof_per_statement=${perStatement.toFixed(1)}`);
console.log(`shared_proof_per_second=${(MEASURED / seconds).toFixed(0)}`);
console.log(`shared_proof_cpu_single_us=${((singleUsed.user + singleUsed.system) / 2_000).toFixed(1)}`);
await orm.close(true);
