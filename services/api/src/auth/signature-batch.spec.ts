import { describe, expect, it } from 'vitest';
import { SignatureBatch } from './signature-batch.js';

describe('SignatureBatch', () => {
  it('runs the checks asked for in one turn together, after it, in the order asked, each answered with its own result', async () => {
    const batch = new SignatureBatch();
    const ran: string[] = [];
    const first = batch.check(() => (ran.push('first'), true));
    const second = batch.check(() => (ran.push('second'), false));
    // Nothing runs in the turn that asked.
    expect(ran).toEqual([]);
    await Promise.resolve();
    expect(ran).toEqual([]);
    await expect(Promise.all([first, second])).resolves.toEqual([true, false]);
    expect(ran).toEqual(['first', 'second']);
  });

  it('answers a check that throws with false, and the others of its batch still run', async () => {
    const batch = new SignatureBatch();
    const throwing = batch.check(() => {
      throw new Error('malformed key');
    });
    const after = batch.check(() => true);
    await expect(throwing).resolves.toBe(false);
    await expect(after).resolves.toBe(true);
  });

  it('starts a new batch for checks asked for after one has run', async () => {
    const batch = new SignatureBatch();
    await expect(batch.check(() => true)).resolves.toBe(true);
    await expect(batch.check(() => false)).resolves.toBe(false);
  });
});
