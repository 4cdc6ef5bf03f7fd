/** The document's tags: which group of Swagger UI each path is shown in, and what the group is. */

const INVITATIONS = {
  name: 'Invitations',
  description:
    "Invitations a person accepts under their own verified email: the tenant's routes, and the invitee's under /me",
};
const TRANSFERS = {
  name: 'Ownership transfers',
  description: 'Two-step transfers of a tenant: an OWNER offers, the nominee accepts under /me',
};

const JOINING = {
  name: 'Joining',
  description:
    'Joining without an invitation: join codes (TEACHERs and above make them, anyone signed in redeems one) and join requests (docs/joining.md)',
};

const GUARDIANS = {
  name: 'Guardians',
  description:
    "Parents and guardians linked to a tenant's students: not members, they see only their own children (docs/guardians.md)",
};

const WEBHOOKS = {
  name: 'Webhooks',
  description:
    "Endpoints that receive the audit trail's events as they commit: a tenant's (its OWNERs change them) and the platform's",
};

const ROSTERS = {
  name: 'Rosters',
  description: "A school's members in bulk: import a CSV file (add or sync, with a dry run), export them",
};

const AUDIT = {
  name: 'Audit trail',
  description: 'Every change, with who made it and the resource before and after (docs/audit.md)',
};

export const SCIM = {
  name: 'SCIM',
  description:
    "The tenant's directory (Entra ID, Okta): SCIM 2.0 with a SCIM token, in SCIM's own shapes and media type (docs/scim.md)",
};

// The first tag whose prefix the path starts with: the specific ones before /tenants/ and /me.
export const TAGS = [
  { prefix: '/tenants/{tenantId}/scim/v2', ...SCIM },
  { prefix: '/tenants/{tenantId}/scim-tokens', ...SCIM },
  { prefix: '/tenants/{tenantId}/scim-groups', ...SCIM },
  { prefix: '/admin/tenants', name: 'Tenants', description: 'Platform routes: super administrators only' },
  { prefix: '/admin/audit-events', ...AUDIT },
  { prefix: '/admin/webhooks', ...WEBHOOKS },
  {
    prefix: '/admin/users',
    name: 'Users',
    description: 'Platform routes on users: super administrators only',
  },
  { prefix: '/tenants/{tenantId}/audit-events', ...AUDIT },
  { prefix: '/tenants/{tenantId}/invitations', ...INVITATIONS },
  { prefix: '/tenants/{tenantId}/ownership-transfers', ...TRANSFERS },
  { prefix: '/tenants/{tenantId}/webhooks', ...WEBHOOKS },
  { prefix: '/tenants/{tenantId}/roster-imports', ...ROSTERS },
  { prefix: '/tenants/{tenantId}/memberships/export', ...ROSTERS },
  { prefix: '/tenants/{tenantId}/join-', ...JOINING },
  { prefix: '/tenants/{tenantId}/students', ...GUARDIANS },
  { prefix: '/tenants/{tenantId}/guardian-links', ...GUARDIANS },
  { prefix: '/tenants/{tenantId}/guardian-invitations', ...GUARDIANS },
  { prefix: '/tenants/{tenantId}/access', ...GUARDIANS },
  { prefix: '/me/guardian-links', ...GUARDIANS },
  { prefix: '/me/guardian-invitations', ...GUARDIANS },
  { prefix: '/me/wards', ...GUARDIANS },
  { prefix: '/me/guardians', ...GUARDIANS },
  { prefix: '/me/invitations', ...INVITATIONS },
  { prefix: '/me/join-requests', ...JOINING },
  { prefix: '/join', ...JOINING },
  { prefix: '/me/ownership-transfers', ...TRANSFERS },
  {
    prefix: '/tenants/',
    name: 'Memberships',
    description: 'Tenant routes: OWNER or ADMIN of the tenant, or a super administrator',
  },
  { prefix: '/me', name: 'Me', description: 'The caller and its memberships' },
  { prefix: '/health', name: 'Health', description: 'Probes; answered without the envelope' },
];
