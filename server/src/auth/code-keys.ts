import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { canonicalRedeemableCode } from './redeemable-code.js';

/**
 * Codes are kept so that the database alone neither reveals nor finds them: looked up by an HMAC,
 * and kept sealed (AES-256-GCM) so that those who may list them can be shown them again. Both keys
 * are derived from one secret that lives outside the database (CODE_SECRET, see config).
 *
 * `purpose` separates kinds of code: the same eight characters as a join code and as a pairing
 * code hash differently, so one kind can never be redeemed as the other.
 */
export class CodeKeys {
  private readonly hmacKey: Buffer;
  private readonly sealKey: Buffer;

  constructor(secret: string | Buffer) {
    const ikm = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
    this.hmacKey = Buffer.from(hkdfSync('sha256', ikm, 'tms-codes', 'lookup', 32));
    this.sealKey = Buffer.from(hkdfSync('sha256', ikm, 'tms-codes', 'seal', 32));
  }

  /** Keys from a random secret: codes made with them cannot be found after a restart (tests only). */
  static ephemeral(): CodeKeys {
    return new CodeKeys(randomBytes(32));
  }

  /** The value stored and looked up: hex HMAC-SHA256 of the canonical code under its purpose. */
  lookupHash(purpose: string, canonicalCode: string): string {
    return createHmac('sha256', this.hmacKey).update(`${purpose}\0${canonicalCode}`).digest('hex');
  }

  /**
   * The hash to look up what a person typed, or undefined when it cannot be a code at all: then
   * nothing is looked up, and the caller answers as for a wrong code.
   */
  lookupHashOfTyped(purpose: string, typed: string): string | undefined {
    const canonical = canonicalRedeemableCode(typed);
    return canonical === undefined ? undefined : this.lookupHash(purpose, canonical);
  }

  /** base64url of iv (12) | tag (16) | ciphertext; the purpose is bound as associated data. */
  seal(purpose: string, canonicalCode: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    cipher.setAAD(Buffer.from(purpose, 'utf8'));
    const body = Buffer.concat([cipher.update(canonicalCode, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The code, or undefined when it was sealed under another secret (CODE_SECRET was changed). */
  open(purpose: string, sealed: string): string | undefined {
    try {
      const bytes = Buffer.from(sealed, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, bytes.subarray(0, 12));
      decipher.setAAD(Buffer.from(purpose, 'utf8'));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
