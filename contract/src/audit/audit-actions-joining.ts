/*
 * The actions of the ways into a tenant other than an admin's: guardians (links, pairing codes)
 * and joining (codes, requests, verified domains). Spread into AUDIT_ACTIONS (audit-actions.ts),
 * where they keep their place in the catalogue.
 */

export const GUARDIAN_ACTIONS = {
  'guardian_link.created': {
    target: 'guardian_link',
    before: 'null',
    after: 'GuardianLink',
    when: 'POST /me/guardian-links (a redeemed pairing code), POST /me/guardian-invitations/:id/accept',
  },
  'guardian_link.reactivated': {
    target: 'guardian_link',
    before: 'GuardianLink',
    after: 'GuardianLink',
    when: 'POST /me/guardian-links or …/guardian-invitations/:id/accept: a REVOKED link of the same guardian and student made ACTIVE again',
  },
  'guardian_link.revoked': {
    target: 'guardian_link',
    before: 'GuardianLink',
    after: 'GuardianLink',
    when: "DELETE …/guardian-links/:id, DELETE …/memberships/:id (the student's)",
  },
  'guardian_link.removed': {
    target: 'guardian_link',
    before: 'GuardianLink',
    after: 'null',
    when: 'DELETE /admin/users/:userId (the guardian or the student erased)',
  },
  'pairing_code.created': {
    target: 'pairing_code',
    before: 'null',
    after: 'PairingCodeSummary',
    when: 'POST …/students/:userId/pairing-codes (the code itself is never recorded)',
  },
  'pairing_code.revoked': {
    target: 'pairing_code',
    before: 'PairingCodeSummary',
    after: 'PairingCodeSummary',
    when: "POST …/students/:userId/pairing-codes making the student's sixth live code: the oldest is revoked",
  },
  'guardian_invitation.created': {
    target: 'guardian_invitation',
    before: 'null',
    after: 'GuardianInvitation',
    when: 'POST …/students/:userId/guardian-invitations, POST …/roster-imports (a guardian column)',
  },
  'guardian_invitation.accepted': {
    target: 'guardian_invitation',
    before: 'GuardianInvitation',
    after: 'GuardianInvitation',
    when: 'POST /me/guardian-invitations/:id/accept (with guardian_link.created or .reactivated)',
  },
  'guardian_invitation.declined': {
    target: 'guardian_invitation',
    before: 'GuardianInvitation',
    after: 'GuardianInvitation',
    when: 'POST /me/guardian-invitations/:id/decline',
  },
  'guardian_invitation.revoked': {
    target: 'guardian_invitation',
    before: 'GuardianInvitation',
    after: 'GuardianInvitation',
    when: "POST …/guardian-invitations/:id/revoke; the student's membership removed; the invitee or the student erased",
  },
} as const satisfies Record<string, { target: string; before: string; after: string; when: string }>;

export const JOINING_ACTIONS = {
  'join_code.created': {
    target: 'join_code',
    before: 'null',
    after: 'JoinCode (without its code)',
    when: 'POST …/join-codes',
  },
  'join_code.rotated': {
    target: 'join_code',
    before: 'JoinCode (without its code)',
    after: 'JoinCode (without its code)',
    when: 'POST …/join-codes/:joinCodeId/rotate',
  },
  'join_code.revoked': {
    target: 'join_code',
    before: 'JoinCode (without its code)',
    after: 'JoinCode (without its code)',
    when: 'DELETE …/join-codes/:joinCodeId',
  },
  'join_request.created': {
    target: 'join_request',
    before: 'null',
    after: 'JoinRequest',
    when: 'POST /join with a code that requires approval; a sign-in at a verified domain of mode request, or its verification or change of mode',
  },
  'join_request.approved': {
    target: 'join_request',
    before: 'JoinRequest',
    after: 'JoinRequest',
    when: 'POST …/join-requests/:joinRequestId/approve (with membership.created)',
  },
  'join_request.rejected': {
    target: 'join_request',
    before: 'JoinRequest',
    after: 'JoinRequest',
    when: 'POST …/join-requests/:joinRequestId/reject',
  },
  'join_request.blocked': {
    target: 'join_request',
    before: 'JoinRequest',
    after: 'JoinRequest',
    when: 'POST …/join-requests/:joinRequestId/block',
  },
  'join_request.cancelled': {
    target: 'join_request',
    before: 'JoinRequest',
    after: 'JoinRequest',
    when: 'POST /me/join-requests/:joinRequestId/cancel',
  },
  'join_request.unblocked': {
    target: 'user',
    before: 'JoinBlock',
    after: 'null',
    when: 'DELETE …/join-blocks/:userId',
  },
  'domain.created': { target: 'domain', before: 'null', after: 'Domain', when: 'POST …/domains' },
  'domain.verified': {
    target: 'domain',
    before: 'Domain',
    after: 'Domain',
    when: 'POST /admin/domains/:domainId/verify',
  },
  'domain.updated': {
    target: 'domain',
    before: 'Domain',
    after: 'Domain',
    when: 'PATCH …/domains/:domainId',
  },
  'domain.removed': { target: 'domain', before: 'Domain', after: 'null', when: 'DELETE …/domains/:domainId' },
} as const satisfies Record<string, { target: string; before: string; after: string; when: string }>;
