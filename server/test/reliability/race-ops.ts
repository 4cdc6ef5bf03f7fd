import type postgres from 'postgres';
import { type Answer, type Caller, dataOf } from './timed-fetch.js';

/** The requests the races are made of; each says what it targets, so its answer can be checked. */
export type Op =
  | { kind: 'createTenant'; slug: string; ownerEmail: string }
  | { kind: 'renameTenant'; tenantId: string; slug: string; from: string }
  | { kind: 'deleteTenant'; tenantId: string }
  | { kind: 'addMember'; tenantId: string; email?: string; userId?: string; role?: 'OWNER' | 'STUDENT' }
  | { kind: 'demote'; tenantId: string; membershipId: string }
  | { kind: 'removeMember'; tenantId: string; membershipId: string };

export type Logged = { round: number; proc: number; op: Op; answer: Answer };

/** Every answer each kind of request may give in these races; anything else is a failure. */
export const ALLOWED: Record<Op['kind'], string[]> = {
  createTenant: ['201', '409 TENANT_SLUG_TAKEN'],
  renameTenant: ['200', '409 TENANT_SLUG_TAKEN', '404 TENANT_NOT_FOUND'],
  deleteTenant: ['204'],
  addMember: ['201', '409 MEMBERSHIP_ALREADY_EXISTS', '404 TENANT_NOT_FOUND'],
  demote: ['200', '409 LAST_OWNER', '404 MEMBERSHIP_NOT_FOUND'],
  removeMember: ['204', '409 LAST_OWNER', '404 MEMBERSHIP_NOT_FOUND'],
};

export const answerKey = (a: Answer) =>
  a.status === 0 ? `no answer (${a.error})` : `${a.status}${a.code ? ` ${a.code}` : ''}`;
export const succeeded = (a: Answer) => a.status >= 200 && a.status < 300;

export function send(call: Caller, op: Op): Promise<Answer> {
  switch (op.kind) {
    case 'createTenant':
      return call('POST', '/admin/tenants', {
        name: op.slug,
        slug: op.slug,
        owner: { email: op.ownerEmail },
      });
    case 'renameTenant':
      return call('PATCH', `/admin/tenants/${op.tenantId}`, { slug: op.slug });
    case 'deleteTenant':
      return call('DELETE', `/admin/tenants/${op.tenantId}`);
    case 'addMember':
      return call('POST', `/tenants/${op.tenantId}/memberships`, {
        role: op.role ?? 'STUDENT',
        ...(op.userId ? { userId: op.userId } : { email: op.email }),
      });
    case 'demote':
      return call('PATCH', `/tenants/${op.tenantId}/memberships/${op.membershipId}`, { role: 'ADMIN' });
    case 'removeMember':
      return call('DELETE', `/tenants/${op.tenantId}/memberships/${op.membershipId}`);
  }
}

type Row = { id: string; tenant_id: string; role: string };

/**
 * Reads the database directly and returns every way it disagrees with an answer: a 2xx whose effect
 * is missing, or a refusal that changed something. Deletes are final here (nothing is restored), so
 * no ordering between the answers is needed. A deleted tenant is kept, marked deleted, with its
 * memberships (docs/lifecycle.md): `tenants` holds the tenants still active.
 */
export async function reconcile(sql: postgres.Sql, log: Logged[]): Promise<string[]> {
  const rows = await sql<{ id: string; slug: string; deleted: boolean }[]>`
    select id, slug, deleted_at is not null as deleted from tenants`;
  const tenants = new Map(rows.filter((t) => !t.deleted).map((t) => [t.id, t.slug]));
  const markedDeleted = new Set(rows.filter((t) => t.deleted).map((t) => t.id));
  const memberships = new Map(
    (await sql<Row[]>`select id, tenant_id, role::text as role from tenant_memberships`).map((m) => [
      m.id,
      m,
    ]),
  );
  const ok = log.filter((e) => succeeded(e.answer));
  const deletedTenants = new Set(ok.flatMap((e) => (e.op.kind === 'deleteTenant' ? [e.op.tenantId] : [])));
  const removed = new Set(ok.flatMap((e) => (e.op.kind === 'removeMember' ? [e.op.membershipId] : [])));
  const renamed = new Map(
    ok.flatMap((e) => (e.op.kind === 'renameTenant' ? [[e.op.tenantId, e.op.slug] as const] : [])),
  );
  const changed = new Set(
    ok.flatMap((e) => (e.op.kind === 'demote' || e.op.kind === 'removeMember' ? [e.op.membershipId] : [])),
  );
  const problems: string[] = [];
  const problem = (e: Logged, what: string) =>
    problems.push(
      `round ${e.round}, ${e.op.kind} on process ${e.proc} answered ${answerKey(e.answer)}: ${what}`,
    );

  for (const e of log) {
    const { op, answer } = e;
    if (succeeded(answer)) {
      if (op.kind === 'addMember') {
        const id = dataOf<{ tenantMembershipId: string }>(answer).tenantMembershipId;
        const gone = deletedTenants.has(op.tenantId) || removed.has(id);
        if (!gone && !memberships.has(id)) problem(e, `membership ${id} is missing`);
      } else if (op.kind === 'removeMember' || op.kind === 'demote') {
        const row = memberships.get(op.membershipId);
        if (op.kind === 'removeMember' && row) problem(e, 'the membership is still there');
        if (op.kind === 'demote' && !removed.has(op.membershipId) && row?.role !== 'ADMIN')
          problem(e, `the membership is ${row?.role ?? 'missing'}, not ADMIN`);
      } else if (op.kind === 'createTenant') {
        const id = dataOf<{ tenantId: string }>(answer).tenantId;
        const slug = renamed.get(id) ?? op.slug;
        if (!deletedTenants.has(id) && tenants.get(id) !== slug)
          problem(e, `tenant ${id} is not there as ${slug}`);
      } else if (op.kind === 'renameTenant') {
        if (!deletedTenants.has(op.tenantId) && tenants.get(op.tenantId) !== op.slug)
          problem(e, `the slug stored is ${tenants.get(op.tenantId)}, not ${op.slug}`);
      } else if (op.kind === 'deleteTenant') {
        if (!markedDeleted.has(op.tenantId)) problem(e, 'the tenant is not marked deleted');
        if (![...memberships.values()].some((m) => m.tenant_id === op.tenantId))
          problem(e, 'its memberships are gone: a soft delete keeps them');
      }
    } else if (answer.code === 'LAST_OWNER' && 'membershipId' in op && !changed.has(op.membershipId)) {
      if (memberships.get(op.membershipId)?.role !== 'OWNER') problem(e, 'refused, yet the OWNER changed');
    } else if (answer.code === 'TENANT_SLUG_TAKEN' && op.kind === 'renameTenant') {
      if (
        !deletedTenants.has(op.tenantId) &&
        tenants.get(op.tenantId) !== (renamed.get(op.tenantId) ?? op.from)
      )
        problem(e, `refused, yet the slug is now ${tenants.get(op.tenantId)}`);
    }
  }
  return problems;
}

/**
 * The invariants of the data (docs/access.md, membership rules), straight from the tables: one
 * membership per user and tenant, unique slugs, an OWNER in every tenant, no orphan membership.
 */
export async function invariantViolations(sql: postgres.Sql) {
  const [duplicates, slugs, ownerless, orphans] = await Promise.all([
    sql`select tenant_id, user_id, count(*)::int as n from tenant_memberships group by 1, 2 having count(*) > 1`,
    sql`select slug, count(*)::int as n from tenants group by slug having count(*) > 1`,
    sql`select t.id, t.slug from tenants t where not exists (
          select 1 from tenant_memberships m where m.tenant_id = t.id and m.role = 'OWNER')`,
    sql`select m.id from tenant_memberships m left join tenants t on t.id = m.tenant_id where t.id is null`,
  ]);
  return { duplicates: [...duplicates], slugs: [...slugs], ownerless: [...ownerless], orphans: [...orphans] };
}
