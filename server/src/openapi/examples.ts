import type {
  CreateMembershipBody,
  CreateTenantBody,
  ErrorEnvelope,
  Me,
  Membership,
  PageMeta,
  ResponseCode,
  Tenant,
  UpdateMembershipBody,
  UpdateTenantBody,
} from '@tms/contract';
import { ERROR_EXAMPLES } from '../errors/registry.js';
import { errorEnvelope } from '../http/error-envelope.js';
import { encodeCursor } from '../pagination/cursor.js';

/*
 * The examples of the OpenAPI document: every request body and every response body, so that
 * Swagger UI and generated clients show real-looking values (not `"roleLevel": 0`). They are typed
 * with the contract's types, and a test parses each one with the route's zod schema
 * (test/unit/openapi.test.ts), so an example cannot drift from the contract.
 *
 * One small story: Ada Head owns Green Valley School (and administers Riverside College); she
 * invites Grace Hopper as a TEACHER, then makes her an ADMIN; Alan Turing is a STUDENT.
 */

export type Example<T = unknown> = { summary: string; description?: string; value: T };
export type Examples<T> = Record<string, Example<T>>;

// UUIDv7s whose timestamps match the createdAt next to them.
export const ADA = { userId: '0194849a-770e-7197-8742-b5eaa607bcfb', email: 'head@greenvalley.example' };
export const GRACE = { userId: '0195609b-8d6d-765b-8440-46f6e8ab8b94', email: 'grace@greenvalley.example' };
export const ALAN = { userId: '019566bd-2f07-726d-9713-1d4febc2e113', email: 'alan@greenvalley.example' };
export const GREEN_VALLEY = '01955b12-0535-7604-963c-bac14605396b';
const RIVERSIDE = '0194f458-eb73-73ff-aae5-adda98f10230';
const REQUEST_ID = '8d3f2a61-4c0e-4b7a-9e15-2f6c0b7d94a3';

export const greenValley: Tenant = {
  tenantId: GREEN_VALLEY,
  slug: 'green-valley',
  name: 'Green Valley School',
  version: 1,
  createdAt: '2025-03-03T08:14:22.517Z',
  updatedAt: '2025-03-03T08:14:22.517Z',
  deletedAt: null,
  purgeAfter: null,
};
const greenValleyRenamed: Tenant = {
  ...greenValley,
  name: 'Green Valley Academy',
  version: 2,
  updatedAt: '2025-03-10T11:05:47.380Z',
};
const greenValleyDeleted: Tenant = {
  ...greenValleyRenamed,
  version: 3,
  updatedAt: '2025-03-20T16:02:55.118Z',
  deletedAt: '2025-03-20T16:02:55.118Z',
  purgeAfter: '2025-04-19T16:02:55.118Z',
};
const greenValleyRestored: Tenant = {
  ...greenValleyRenamed,
  version: 4,
  updatedAt: '2025-04-02T09:41:13.072Z',
};
const riverside: Tenant = {
  tenantId: RIVERSIDE,
  slug: 'riverside',
  name: 'Riverside College',
  version: 3,
  createdAt: '2025-02-11T09:30:55.731Z',
  updatedAt: '2025-02-27T15:12:08.446Z',
  deletedAt: null,
  purgeAfter: null,
};

export const adaOwner: Membership = {
  tenantMembershipId: '01955b12-0537-7391-8ba2-a48c71bf41a8',
  tenantId: GREEN_VALLEY,
  userId: ADA.userId,
  role: 'OWNER',
  roleLevel: 40,
  status: 'ACTIVE',
  startsAt: null,
  endsAt: null,
  suspendedAt: null,
  suspensionReason: null,
  managedBy: null,
  version: 1,
  user: { ...ADA, displayName: 'Ada Head' },
  createdAt: '2025-03-03T08:14:22.517Z',
  updatedAt: '2025-03-03T08:14:22.517Z',
};
export const graceTeacher: Membership = {
  tenantMembershipId: '0195609b-8d70-796c-9954-6a8639bab893',
  tenantId: GREEN_VALLEY,
  userId: GRACE.userId,
  role: 'TEACHER',
  roleLevel: 20,
  status: 'ACTIVE',
  startsAt: null,
  endsAt: null,
  suspendedAt: null,
  suspensionReason: null,
  managedBy: null,
  version: 1,
  user: { ...GRACE, displayName: 'Grace Hopper' },
  createdAt: '2025-03-04T10:02:41.904Z',
  updatedAt: '2025-03-04T10:02:41.904Z',
};
export const graceAdmin: Membership = {
  ...graceTeacher,
  role: 'ADMIN',
  roleLevel: 30,
  version: 2,
  updatedAt: '2025-03-06T07:51:18.004Z',
};
export const alanStudent: Membership = {
  tenantMembershipId: '019566bd-2f0c-7fe3-ad32-9d96be2ca3a8',
  tenantId: GREEN_VALLEY,
  userId: ALAN.userId,
  role: 'STUDENT',
  roleLevel: 10,
  status: 'ACTIVE',
  startsAt: null,
  endsAt: null,
  suspendedAt: null,
  suspensionReason: null,
  managedBy: null,
  version: 1,
  user: { ...ALAN, displayName: null },
  createdAt: '2025-03-05T14:37:09.260Z',
  updatedAt: '2025-03-05T14:37:09.260Z',
};

const me: Me = {
  user: { userId: ADA.userId, email: ADA.email, displayName: 'Ada Head', isSuperAdmin: false },
  memberships: [
    {
      tenantMembershipId: '0194f458-eb77-7f7d-85a9-9f38f1dc0512',
      tenantId: RIVERSIDE,
      tenantSlug: riverside.slug,
      tenantName: riverside.name,
      role: 'ADMIN',
      roleLevel: 30,
      status: 'ACTIVE',
      startsAt: null,
      endsAt: null,
    },
    {
      tenantMembershipId: adaOwner.tenantMembershipId,
      tenantId: GREEN_VALLEY,
      tenantSlug: greenValley.slug,
      tenantName: greenValley.name,
      role: 'OWNER',
      roleLevel: 40,
      status: 'ACTIVE',
      startsAt: null,
      endsAt: null,
    },
  ],
  guardianOf: [],
};

export const ok = <T>(data: T) => ({ success: true as const, data });
const page = <T>(data: T[], meta: PageMeta) => ({ success: true as const, data, meta });

/** Request body examples, by operationId. */
export const REQUEST_EXAMPLES = {
  createTenant: {
    ownerByEmail: {
      summary: 'Owner invited by email',
      description: 'An email that names no user yet creates an invited user.',
      value: {
        name: 'Green Valley School',
        slug: 'green-valley',
        owner: { email: ADA.email, displayName: 'Ada Head' },
      },
    },
    ownerById: {
      summary: 'Owner who already has an account',
      value: { name: 'Green Valley School', slug: 'green-valley', owner: { userId: ADA.userId } },
    },
  } satisfies Examples<CreateTenantBody>,
  updateTenant: {
    rename: { summary: 'Rename', value: { name: 'Green Valley Academy' } },
    renameAndMove: {
      summary: 'Rename and change the slug',
      value: { name: 'Green Valley Academy', slug: 'green-valley-academy' },
    },
  } satisfies Examples<UpdateTenantBody>,
  createMembership: {
    byEmail: {
      summary: 'Invite a teacher by email',
      value: { role: 'TEACHER', email: GRACE.email, displayName: 'Grace Hopper' },
    },
    byUserId: {
      summary: 'Add an existing user',
      value: { role: 'STUDENT', userId: ALAN.userId },
    },
  } satisfies Examples<CreateMembershipBody>,
  updateMembership: {
    promote: { summary: 'Make an administrator', value: { role: 'ADMIN' } },
  } satisfies Examples<UpdateMembershipBody>,
} satisfies Record<string, Examples<unknown>>;

/** Success response examples, by operationId and status (204 has no body, so no example). */
export const RESPONSE_EXAMPLES = {
  createTenant: {
    201: { created: { summary: 'The new tenant, at version 1', value: ok(greenValley) } },
  },
  listTenants: {
    200: {
      firstPage: {
        summary: 'A page with more after it (`limit=2`)',
        description: 'Pass `meta.nextCursor` as `cursor` to read the next page.',
        value: page([riverside, greenValley], { nextCursor: encodeCursor(GREEN_VALLEY) }),
      },
      lastPage: {
        summary: 'The last page',
        value: page([greenValleyRenamed], { nextCursor: null }),
      },
      deleted: {
        summary: 'The deleted tenants (`status=DELETED`), restorable until `purgeAfter`',
        value: page([greenValleyDeleted], { nextCursor: null }),
      },
    },
  },
  getTenant: {
    200: { tenant: { summary: 'A tenant; its `version` is also the `ETag`', value: ok(greenValley) } },
  },
  updateTenant: {
    200: { renamed: { summary: 'Renamed: the version moved on to 2', value: ok(greenValleyRenamed) } },
  },
  restoreTenant: {
    200: {
      restored: {
        summary: 'Active again: deleted at version 3, restored at version 4',
        value: ok(greenValleyRestored),
      },
    },
  },
  listMemberships: {
    200: {
      withTotal: {
        summary: 'A page with more after it (`limit=3&includeTotal=true`)',
        description: 'Pass `meta.nextCursor` as `cursor` (with the same `sort`) to read the next page.',
        value: page([adaOwner, graceAdmin, alanStudent], {
          nextCursor: encodeCursor(alanStudent.tenantMembershipId),
          total: 27,
        }),
      },
      filtered: {
        summary: 'The only page (`role=ADMIN`)',
        value: page([graceAdmin], { nextCursor: null }),
      },
    },
  },
  getMembership: {
    200: { admin: { summary: 'An ADMIN membership at version 2', value: ok(graceAdmin) } },
  },
  createMembership: {
    201: { invited: { summary: 'A teacher invited by email', value: ok(graceTeacher) } },
  },
  updateMembership: {
    200: { promoted: { summary: 'Promoted to ADMIN: the version moved on to 2', value: ok(graceAdmin) } },
  },
  getMe: {
    200: { member: { summary: 'A user who belongs to two tenants', value: ok(me) } },
  },
} satisfies Record<string, Record<number, Examples<unknown>>>;

/** The error envelope the server answers for `code`, with a request id. */
export const errorExample = (code: ResponseCode): Example<ErrorEnvelope> => {
  const error = ERROR_EXAMPLES[code]();
  return { summary: error.message, value: errorEnvelope(error, REQUEST_ID) };
};

/** Values for the response headers' examples. */
export const HEADER_EXAMPLES = {
  requestId: REQUEST_ID,
  etag: `"${graceAdmin.version}"`,
};
