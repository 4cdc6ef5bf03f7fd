import { domainToASCII, domainToUnicode } from 'node:url';
import { analyzeEmail } from '@hapi/address';
import { ValidationFailedError } from '../errors/index.js';

/**
 * The one form in which an email address identifies a person: the key that is stored, indexed,
 * looked up and claimed. Two addresses are the same person only when these are equal byte for byte.
 *
 * - The domain goes through IDNA (UTS #46, as a mail system resolves it) to ASCII, lower-cased:
 *   `MÜLLER.de` and `xn--mller-kva.de` are one domain, and `İnstitute.edu` (xn--institute-5jf.edu)
 *   is not `institute.edu`.
 * - A domain that IDNA's mapping changes in any way other than case is no domain: the mapping
 *   removes zero-width and other default-ignorable characters and folds compatibility forms
 *   (full-width letters, `。`), so `zw@example\u200b.edu` would be `zw@example.edu`. An identity
 *   provider that verified the first has not shown that the caller controls the second.
 * - The local part is lower-cased in ASCII only, and otherwise kept as given: Unicode case mapping
 *   (PostgreSQL's lower(), toLowerCase()) and normalisation (NFC maps KELVIN SIGN to `K`) would
 *   make `\u212Aim@…` and `kim@…` one person, handing one's invitations to the other.
 *
 * Undefined when the address is not valid by RFC 5321/5322/6531 as @hapi/address reads them.
 */
export function canonicalEmail(address: string): string | undefined {
  if (analyzeEmail(address) !== null) return undefined;
  const at = address.lastIndexOf('@');
  const given = address.slice(at + 1);
  const domain = domainToASCII(given).toLowerCase();
  if (domain === '' || !onlyCaseMapped(given, domain)) return undefined;
  return `${asciiLowerCase(address.slice(0, at))}@${domain}`;
}

/** An address as given (shown) with the form that identifies its owner (looked up). */
export type EmailIdentity = { address: string; canonical: string };

/** The address with its canonical form; undefined when it is not valid. */
export function emailIdentity(address: string): EmailIdentity | undefined {
  const canonical = canonicalEmail(address);
  return canonical === undefined ? undefined : { address, canonical };
}

/** Why an address is refused, for the validation error; undefined when it is valid. */
export function emailProblem(address: string): string | undefined {
  return analyzeEmail(address)?.error ?? (canonicalEmail(address) ? undefined : 'not a valid email address');
}

/**
 * Whether IDNA turned `given` into `ascii` changing nothing but case, label by label: each label
 * is either its ASCII form already (an A-label, `xn--mller-kva`), or the Unicode form of that
 * ASCII label lower-cased, as a whole or letter by letter (a final sigma lower-cases to ς in
 * context, σ alone, and IDNA maps Σ to σ).
 */
function onlyCaseMapped(given: string, ascii: string): boolean {
  const labels = given.split('.');
  const asciiLabels = ascii.split('.');
  const mappedLabels = domainToUnicode(ascii).split('.');
  if (labels.length !== asciiLabels.length || labels.length !== mappedLabels.length) return false;
  return labels.every((label, i) => {
    const lower = label.toLowerCase();
    const mapped = mappedLabels[i];
    return (
      lower === asciiLabels[i] ||
      mapped === lower ||
      mapped === [...label].map((c) => c.toLowerCase()).join('')
    );
  });
}

const asciiLowerCase = (text: string) => text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());

/** An address given in a request; one that is not valid is the caller's error, at `path`. */
export function emailIdentityOf(address: string, path: string): EmailIdentity {
  const identity = emailIdentity(address);
  if (!identity) throw new ValidationFailedError([{ path, message: emailProblem(address) ?? 'not valid' }]);
  return identity;
}

/**
 * A domain as it is stored and matched: the domain part of canonicalEmail's form (IDNA to ASCII,
 * lower case), without a trailing dot. Undefined when IDNA would change it other than by case,
 * or when it is no host name (labels of letters, digits and hyphens, 1 to 63 characters each).
 */
export function canonicalDomain(given: string): string | undefined {
  const name = given.endsWith('.') ? given.slice(0, -1) : given;
  if (name === '' || name.length > 253) return undefined;
  const ascii = domainToASCII(name).toLowerCase();
  if (ascii === '' || !onlyCaseMapped(name, ascii)) return undefined;
  return ascii.split('.').every((label) => HOST_LABEL.test(label)) ? ascii : undefined;
}

const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** The domain of a canonical address (what canonicalEmail returned). */
export const domainOfCanonicalEmail = (canonical: string): string =>
  canonical.slice(canonical.lastIndexOf('@') + 1);
