/** How long a deleted tenant can be restored before the purge removes it: TENANT_RETENTION_DAYS. */
export type TenantRetention = { days: number };

const DAY_MS = 86_400_000;

/** Until when a tenant deleted at `deletedAt` can be restored; from then on, the purge removes it. */
export const purgeAfterOf = (deletedAt: Date, retention: TenantRetention): Date =>
  new Date(deletedAt.getTime() + retention.days * DAY_MS);

/** At `now`, tenants deleted at or before this are past their retention (days of 24 hours). */
export const retentionCutoff = (now: Date, retention: TenantRetention): Date =>
  new Date(now.getTime() - retention.days * DAY_MS);
