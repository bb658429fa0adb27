import { createHash } from 'node:crypto';
import type { CanaryAudience } from '../registry/index.js';

/** How many buckets people are spread over: a canary's share is a whole percentage, one bucket each. */
export const COHORT_BUCKETS = 100;

/**
 * The bucket (0-99) a person falls in for one remote: the first four bytes of
 * SHA-256(`<remote name>:<sub>`) read as an unsigned big-endian integer, modulo 100. `sub` is the verified
 * token's subject, never anything the browser says; the remote's name (which cannot contain `:`) makes each
 * remote's cohorts independent, so the same people are not first in line for every canary. The bias of
 * 2^32 mod 100 is below one part in 40 million. Pure and stateless: every API replica puts a person in the
 * same bucket, on every call.
 */
export function cohortBucket(remote: string, sub: string): number {
  const digest = createHash('sha256').update(`${remote}:${sub}`, 'utf8').digest();
  return digest.readUInt32BE(0) % COHORT_BUCKETS;
}

/**
 * Whether the person gets the canary: they hold one of its roles, or their bucket (cohortBucket) is below its
 * share.
 * Widening the share only adds people: whoever was in at 10 % is still in at 50 %.
 */
export function inCanary(
  audience: CanaryAudience,
  remote: string,
  person: { readonly sub: string; readonly roles: readonly string[] },
): boolean {
  if (audience.roles.some((role) => person.roles.includes(role))) return true;
  return audience.percent > 0 && cohortBucket(remote, person.sub) < audience.percent;
}
