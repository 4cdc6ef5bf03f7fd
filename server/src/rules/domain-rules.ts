import { createRequire } from 'node:module';
import type { Role } from '@tms/contract';
import { getDomain, getPublicSuffix } from 'tldts';
import { ROLE_LEVEL } from './policy.js';
import type { Problem } from './problems.js';

/*
 * The rules of a tenant's mail domain (docs/joining.md, "Verified domains"). A domain lets in
 * everyone whose verified address is at it, so it must be one the school alone gives addresses at:
 * never a mail service anyone may sign up to (consumer or disposable), never a suffix under which
 * anyone may register a name, never an address that is no name at all.
 */

// Both lists are plain JSON arrays of domains, kept up to date by their maintainers (docs/joining.md).
// Read at the first domain checked, not at the start: ~130,000 names that most processes never need.
const require = createRequire(import.meta.url);
let lists: { consumer: Set<string>; disposable: Set<string> } | undefined;
const mailLists = () =>
  (lists ??= {
    consumer: new Set<string>(require('email-providers/all.json') as string[]),
    disposable: new Set<string>(require('disposable-email-domains') as string[]),
  });

/** Why a domain cannot be a tenant's, or undefined; `domain` is canonical (canonicalDomainOf). */
export function domainNameProblem(domain: string): string | undefined {
  const registrable = getDomain(domain, { allowPrivateDomains: true });
  if (getPublicSuffix(domain, { allowPrivateDomains: true }) === domain || registrable === null)
    return 'is a public suffix: anyone may register a name under it';
  const { consumer, disposable } = mailLists();
  if (consumer.has(domain) || consumer.has(registrable))
    return 'is a consumer mail domain: anyone may have an address at it';
  if (disposable.has(domain) || disposable.has(registrable))
    return 'is a disposable mail domain: anyone may have an address at it';
  return undefined;
}

/** A domain gives at most TEACHER (the contract refuses more), and only an OWNER sets TEACHER. */
export function domainRoleProblem(actorLevel: number, role: Role): Problem | undefined {
  if (ROLE_LEVEL[role] < ROLE_LEVEL.TEACHER || actorLevel >= ROLE_LEVEL.OWNER) return undefined;
  return {
    rule: 'hierarchy',
    message: `Only an OWNER manages a domain giving the role ${role}`,
    field: 'role',
  };
}

/**
 * Whether a verified address's domain is this domain: equal, or below it when subdomains are
 * included. Label by label, never a substring: `evilschool.edu` is not under `school.edu`.
 */
export const domainCovers = (
  domain: { domain: string; includeSubdomains: boolean },
  emailDomain: string,
): boolean =>
  emailDomain === domain.domain || (domain.includeSubdomains && emailDomain.endsWith(`.${domain.domain}`));
