import type { CreateDomainBody, Domain, UpdateDomainBody } from '@tms/contract';
import { encodeCursor } from '../pagination/cursor.js';
import { type Examples, GREEN_VALLEY, ok } from './examples.js';

/*
 * The examples of verified domains (issue 28), in the same story: Ada, Green Valley's head, whose
 * own address is at greenvalley.example, adds the school's domains.
 */

const schoolDomain: Domain = {
  domainId: '019acb10-4e2f-7a31-9c5d-2b3c4d5e6f20',
  tenantId: GREEN_VALLEY,
  domain: 'greenvalley.example',
  mode: 'join',
  role: 'STUDENT',
  includeSubdomains: true,
  verifiedAt: '2025-09-01T08:00:00.000Z',
  createdAt: '2025-09-01T08:00:00.000Z',
};
const staffDomain: Domain = {
  ...schoolDomain,
  domainId: '019acb10-4e2f-7a31-9c5d-2b3c4d5e6f21',
  domain: 'staff.greenvalley-trust.example',
  mode: 'request',
  role: 'TEACHER',
  includeSubdomains: false,
  verifiedAt: null,
};

const single = <T>(summary: string, value: T) => ({ one: { summary, value: ok(value) } });

export const DOMAIN_REQUEST_EXAMPLES = {
  createDomain: {
    students: {
      summary: 'Everyone at the school’s domain and its subdomains joins as a STUDENT',
      value: { domain: 'greenvalley.example', mode: 'join', includeSubdomains: true },
    },
    staff: {
      summary: 'Staff ask to join as TEACHERs (an OWNER only), an ADMIN approves',
      value: { domain: 'staff.greenvalley-trust.example', mode: 'request', role: 'TEACHER' },
    },
  } satisfies Examples<CreateDomainBody>,
  updateDomain: {
    request: { summary: 'From now on, ask rather than join', value: { mode: 'request' } },
  } satisfies Examples<UpdateDomainBody>,
};

export const DOMAIN_RESPONSE_EXAMPLES = {
  createDomain: {
    201: {
      verified: {
        summary: "At the caller's own address's domain: verified at once",
        value: ok(schoolDomain),
      },
      unverified: { summary: 'Waits for a super administrator to verify it', value: ok(staffDomain) },
    },
  },
  listDomains: {
    200: {
      all: {
        summary: "The tenant's domains",
        value: { ...ok([schoolDomain, staffDomain]), meta: { nextCursor: null } },
      },
      more: {
        summary: 'A page with more after it (`limit=1`)',
        value: { ...ok([schoolDomain]), meta: { nextCursor: encodeCursor(schoolDomain.domainId) } },
      },
    },
  },
  getDomain: { 200: single('One domain', schoolDomain) },
  updateDomain: { 200: single('Changed: sign-ins ask from now on', { ...schoolDomain, mode: 'request' }) },
  verifyDomain: {
    200: single('Verified by a super administrator', {
      ...staffDomain,
      verifiedAt: '2025-09-02T10:00:00.000Z',
    }),
  },
};
