import { randomInt } from 'node:crypto';

/*
 * The short codes people type from a board or a letter (join codes, pairing codes): 8 characters
 * from an alphabet without look-alikes (no 0/O, 1/I/L, 5/S, 2/Z), 27^8 ≈ 2.8e11 of them, drawn
 * with a cryptographic source. Typed in any case, with or without one `-` in the middle.
 */

export const REDEEMABLE_CODE_ALPHABET = 'ABCDEFGHJKMNPQRTUVWXY346789';
export const REDEEMABLE_CODE_LENGTH = 8;

const VALID = new RegExp(`^[${REDEEMABLE_CODE_ALPHABET}]{${REDEEMABLE_CODE_LENGTH}}$`);
const HALF = REDEEMABLE_CODE_LENGTH / 2;

/** A new code in its canonical form (8 upper-case characters, no dash). */
export function newRedeemableCode(): string {
  let code = '';
  for (let i = 0; i < REDEEMABLE_CODE_LENGTH; i += 1) {
    code += REDEEMABLE_CODE_ALPHABET[randomInt(REDEEMABLE_CODE_ALPHABET.length)];
  }
  return code;
}

/**
 * The canonical form of what a person typed, or undefined when it cannot be a code (then nothing
 * is looked up). Spaces around it are forgiven; a dash only in the middle, once.
 */
export function canonicalRedeemableCode(typed: string): string | undefined {
  const trimmed = typed.trim().toUpperCase();
  const plain =
    trimmed.length === REDEEMABLE_CODE_LENGTH + 1 && trimmed[HALF] === '-'
      ? trimmed.slice(0, HALF) + trimmed.slice(HALF + 1)
      : trimmed;
  return VALID.test(plain) ? plain : undefined;
}

/** How a code is shown: `ABCD-EFGH`, easier to read aloud and to copy. */
export const displayRedeemableCode = (code: string): string => `${code.slice(0, HALF)}-${code.slice(HALF)}`;
