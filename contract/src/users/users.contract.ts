import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { UuidSchema } from '../common/ids.js';
import type { RouteMetadata } from '../common/metadata.js';
import { withErrorResponses } from '../route-errors.js';

const c = initContract();

export const UserIdParams = z.object({
  userId: UuidSchema.describe("The user's `userId`, as a membership's `userId` gives it"),
});

/** What the trail records of an erasure (`user.erased`'s `after`): nothing that names the person. */
export const ErasedUserSchema = z.object({
  userId: UuidSchema,
  pseudonym: z.string().describe('What now stands for the name and the email, everywhere'),
  membershipsRemoved: z.number().int(),
  invitationsRevoked: z.number().int(),
  transfersCancelled: z.number().int(),
});
export type ErasedUser = z.infer<typeof ErasedUserSchema>;

const routes = c.router({
  erase: {
    method: 'DELETE',
    path: '/admin/users/:userId',
    pathParams: UserIdParams,
    body: c.noBody(),
    responses: { 204: c.noBody() },
    metadata: { access: 'superAdmin', errors: ['USER_NOT_FOUND', 'LAST_OWNER'] } satisfies RouteMetadata,
    summary:
      'Erase a user for privacy: memberships removed, name and email replaced by a pseudonym everywhere',
    description:
      'In one transaction: every membership of the user is removed (each with its `membership.removed` ' +
      'event), their pending invitations are revoked and pending ownership transfers cancelled, the ' +
      "user's email, name and subject are replaced by a pseudonym or removed, and so are they inside " +
      'the audit trail (before/after, the actor subject). The history still adds up: events keep their ' +
      'numbers and ids. Refused with LAST_OWNER while the user is the last ACTIVE OWNER of a tenant: ' +
      'hand the tenant over first. Erasing an erased user is 404.',
  },
});

export const usersContract = withErrorResponses(routes);
