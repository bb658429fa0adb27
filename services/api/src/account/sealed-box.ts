import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals short texts (AES-256-GCM, base64url) under a key derived from a secret every API replica shares, one key
 * per purpose, so a text sealed for one purpose never opens as another. What the browser carries (the state of
 * an account-access request) or the database keeps (a person's account token) is then unreadable and unforgeable
 * without the secret.
 */
export class SealedBox {
  private readonly key: Buffer;

  constructor(secret: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'atrium sealed box', purpose, 32));
  }

  seal(text: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The text, or null for anything this box did not seal (altered, cut, another purpose or secret). */
  open(sealed: string): string | null {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES || bytes.toString('base64url') !== sealed) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const body = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
