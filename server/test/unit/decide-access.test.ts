import type { Role, RouteAccess } from '@tms/contract';
import { describe, expect, it } from 'vitest';
import { type AccessFacts, decideAccess, SUPER_ADMIN_LEVEL } from '../../src/access/decide-access.js';

// The one access decision (docs/access.md), on the facts read with the caller: every rule against
// every kind of caller, without a database.

const TENANT = '01900000-0000-7000-8000-000000000001';
const member = (role: Role | null, exists = true): AccessFacts => ({
  isSuperAdmin: false,
  tenant: { tenantId: TENANT, exists, role },
});
const superAdmin = (exists = true): AccessFacts => ({
  isSuperAdmin: true,
  tenant: { tenantId: TENANT, exists, role: null },
});

const outcome = (rule: RouteAccess, facts: AccessFacts) => {
  try {
    const access = decideAccess(rule, facts);
    return access ? `level ${access.level}` : 'allowed';
  } catch (error) {
    return (error as { code: string }).code;
  }
};

describe('decideAccess', () => {
  it.each<[string, RouteAccess, AccessFacts, string]>([
    ['anyone signed in, on an authenticated route', 'authenticated', { isSuperAdmin: false }, 'allowed'],
    ['a super administrator, on a platform route', 'superAdmin', { isSuperAdmin: true }, 'allowed'],
    ['anyone else, on a platform route', 'superAdmin', { isSuperAdmin: false }, 'SUPER_ADMIN_REQUIRED'],
    ['an OWNER of the tenant', 'tenantAdmin', member('OWNER'), 'level 40'],
    ['an ADMIN of the tenant', 'tenantAdmin', member('ADMIN'), 'level 30'],
    ['a TEACHER of the tenant', 'tenantAdmin', member('TEACHER'), 'INSUFFICIENT_ROLE'],
    ['a STUDENT of the tenant', 'tenantAdmin', member('STUDENT'), 'INSUFFICIENT_ROLE'],
    // A stranger learns nothing, not even whether the tenant exists.
    ['a stranger to a tenant that exists', 'tenantAdmin', member(null), 'TENANT_ACCESS_DENIED'],
    ['a stranger to a tenant that does not', 'tenantAdmin', member(null, false), 'TENANT_ACCESS_DENIED'],
    ['a super administrator, in any tenant', 'tenantAdmin', superAdmin(), `level ${SUPER_ADMIN_LEVEL}`],
    // Only one who may see every tenant is told that one is missing.
    ['a super administrator, in a missing tenant', 'tenantAdmin', superAdmin(false), 'TENANT_NOT_FOUND'],
    // Join codes and requests: TEACHERs manage them for their students.
    ['a TEACHER, on a tenantTeacher route', 'tenantTeacher', member('TEACHER'), 'level 20'],
    ['an OWNER, on a tenantTeacher route', 'tenantTeacher', member('OWNER'), 'level 40'],
    ['a STUDENT, on a tenantTeacher route', 'tenantTeacher', member('STUDENT'), 'INSUFFICIENT_ROLE'],
    ['a stranger, on a tenantTeacher route', 'tenantTeacher', member(null), 'TENANT_ACCESS_DENIED'],
    [
      'a super administrator, on a tenantTeacher route',
      'tenantTeacher',
      superAdmin(),
      `level ${SUPER_ADMIN_LEVEL}`,
    ],
  ])('%s', (_label, rule, facts, expected) => {
    expect(outcome(rule, facts)).toBe(expected);
  });

  it('decides a tenant route without a tenant named as no tenant decision', () => {
    expect(decideAccess('tenantAdmin', { isSuperAdmin: false })).toBeUndefined();
  });
});
