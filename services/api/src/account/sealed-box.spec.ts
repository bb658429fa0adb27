import { describe, expect, it } from 'vitest';
import { SealedBox } from './sealed-box.js';

describe('SealedBox', () => {
  const box = new SealedBox('the client secret', 'account access request state');

  it('opens what it sealed, and seals the same text differently each time', () => {
    const sealed = box.seal('{"sub":"alice"}');
    expect(box.open(sealed)).toBe('{"sub":"alice"}');
    expect(box.seal('{"sub":"alice"}')).not.toBe(sealed);
    expect(sealed).not.toContain('alice');
  });

  it('opens nothing altered, cut, or sealed for another purpose or with another secret', () => {
    const sealed = box.seal('{"sub":"alice"}');
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[bytes.length - 20]! ^= 1;
    expect(box.open(bytes.toString('base64url'))).toBeNull();
    expect(box.open(sealed.slice(0, -4))).toBeNull();
    expect(box.open(`${sealed}!`)).toBeNull();
    expect(box.open('')).toBeNull();
    expect(new SealedBox('the client secret', 'account access token').open(sealed)).toBeNull();
    expect(new SealedBox('another secret', 'account access request state').open(sealed)).toBeNull();
  });
});
