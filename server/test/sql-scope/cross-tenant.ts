import { readFileSync } from 'node:fs';

/**
 * Why a statement may touch tenant-scoped tables without naming one tenant. Each reason also says
 * what the statement costs on Citus (docs/scaling.md): a query of every shard, where one tenant's
 * statement is routed to one.
 */
export const REASONS = {
  me: 'the caller across their tenants (GET /me, /me/invitations, /me/ownership-transfers, /me/join-requests): one shard per tenant, gathered',
  invitee:
    "the invitee's and nominee's answers name an invitation or transfer by its id alone: its tenant is learned from the row, then locked",
  redeemer:
    "a guardian redeeming a pairing code names it by the code alone: its tenant is learned from the row (by the code's keyed hash), then locked",
  identity:
    'a user seen for the first time (or with a new verified email) claims the invitations to that address, and finds the verified domains at it, in every tenant',
  platform:
    "a super administrator's list or change across tenants (/admin/tenants, platform webhooks, the platform trail)",
  'webhook-fanout': 'an event reaches the platform endpoints (tenant_id null) besides its own tenant’s',
  'webhook-delivery': 'the delivery worker finds due endpoints across tenants, and holds one by its id alone',
  outbox:
    'webhook_deliveries has no tenant_id: the audit event a delivery names is found by its id alone (the column to add is in docs/scaling.md)',
  maintenance:
    "purges, retention and background housekeeping (a process's roster imports' heartbeat, the stale ones): rows of every tenant",
  erasure: "a user's erasure reaches their rows in every tenant",
  joiner:
    "joining by a code names no tenant: the code is found by its HMAC alone (unique in every tenant, so a new one's characters are checked against all), then its tenant is locked; a person cancels their join request by its id alone",
  health: 'readiness probes a table, reading no row',
  'scoping-gap':
    'names a row by its id alone though its tenant is known and locked: correct, but every shard on Citus; reported for a fix',
  'test-fixture':
    'written by a test, not by the service: it sets up or inspects rows by their id, or several tenants at once',
} as const;

export type CrossTenantReason = keyof typeof REASONS;

/**
 * An allowed statement: its text (the fingerprint of which matches), why, and who sends it.
 * `sentBy`: a family, every statement the named function of `source` sends, whatever optional
 * filters it adds (a platform list's: 2^n combinations, which a fuzzer's request picks at random);
 * the filters never name a tenant, and `sql` is one of them, checked as the others are.
 */
export type CrossTenantStatement = {
  reason: CrossTenantReason;
  source: string;
  sql: string;
  sentBy?: string;
};

const FILE = new URL('./cross-tenant.json', import.meta.url);

/** The allow-list, kept as JSON so that every entry is the whole statement, readable and re-checkable. */
export function crossTenantStatements(): CrossTenantStatement[] {
  const entries = JSON.parse(readFileSync(FILE, 'utf8')) as CrossTenantStatement[];
  for (const entry of entries) {
    if (!(entry.reason in REASONS)) throw new Error(`cross-tenant.json: unknown reason ${entry.reason}`);
  }
  return entries;
}
