import { DomainSchema } from '@tms/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantDomains } from '../../src/db/schema.js';
import { schoolOf } from '../joining/helpers.js';
import { createActor } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { refusal, refused, sdkOf } from '../support/sdk.js';
import { freshDomain, withVerifiedEmail } from './helpers.js';

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

/** A field's refusal: 400 VALIDATION_FAILED naming it. */
async function fieldRefusal(call: Promise<unknown>): Promise<{ code: string; paths: string[] }> {
  try {
    await call;
  } catch (error) {
    const e = error as { code: string; details: { path: string }[] };
    return { code: e.code, paths: e.details.map((d) => d.path) };
  }
  throw new Error('expected a refusal');
}

describe('POST /tenants/:tenantId/domains', () => {
  it("verifies at once a domain of the caller's own verified address", async () => {
    const school = await schoolOf(h);
    const domain = freshDomain();
    const admin = await withVerifiedEmail(h, school.admin, `head@${domain}`);
    const added = await sdkOf(h, admin).domains.create(school.tenantId, { domain, mode: 'join' });
    expect(DomainSchema.parse(added)).toEqual(added);
    expect(added).toMatchObject({ domain, mode: 'join', role: 'STUDENT', includeSubdomains: false });
    expect(added.verifiedAt).not.toBeNull();
  });

  it('verifies a parent domain from an address at a subdomain only when subdomains are included', async () => {
    const school = await schoolOf(h);
    const domain = freshDomain();
    const admin = await withVerifiedEmail(h, school.admin, `head@staff.${domain}`);
    const without = await sdkOf(h, admin).domains.create(school.tenantId, { domain, mode: 'join' });
    expect(without.verifiedAt).toBeNull();
    const other = freshDomain();
    const head = await withVerifiedEmail(h, school.owner, `head@mail.${other}`);
    const withSubs = await sdkOf(h, head).domains.create(school.tenantId, {
      domain: other,
      mode: 'request',
      includeSubdomains: true,
    });
    expect(withSubs.verifiedAt).not.toBeNull();
  });

  it('leaves a domain unverified when the address only ends with its characters', async () => {
    const school = await schoolOf(h);
    const domain = freshDomain();
    const admin = await withVerifiedEmail(h, school.admin, `head@evil${domain}`);
    const added = await sdkOf(h, admin).domains.create(school.tenantId, {
      domain,
      mode: 'join',
      includeSubdomains: true,
    });
    expect(added.verifiedAt).toBeNull();
  });

  it('stores the canonical form: lower case, IDNA A-labels, no trailing dot', async () => {
    const school = await schoolOf(h);
    const owner = sdkOf(h, school.owner);
    const label = freshDomain().split('.')[0] ?? '';
    const upper = await owner.domains.create(school.tenantId, {
      domain: `${label.toUpperCase()}.Example.EDU.`,
      mode: 'join',
    });
    expect(upper.domain).toBe(`${label}.example.edu`);
    const idn = await owner.domains.create(school.tenantId, { domain: `MÜLLER-${label}.de`, mode: 'join' });
    expect(idn.domain).toMatch(/^xn--/);
    expect(idn.domain).toBe(new URL(`http://müller-${label}.de`).hostname);
  });

  it.each([
    ['gmail.com', 'a consumer mail domain'],
    ['GMX.de', 'a consumer mail domain'],
    ['mailinator.com', 'a disposable mail domain'],
    ['com', 'a top-level domain'],
    ['co.uk', 'a public suffix'],
    ['github.io', "a public suffix (the list's private section)"],
    ['192.168.1.10', 'an IPv4 address'],
    ['[::1]', 'an IPv6 address'],
    ['exa mple.edu', 'a space'],
    ['a..example.edu', 'an empty label'],
    ['-x.example.edu', 'a label starting with a hyphen'],
    ['x_y.example.edu', 'an underscore'],
    ['exam\u200bple.edu', 'a zero-width character IDNA would remove'],
    ['head@example.edu', 'an address'],
  ])('refuses %s (%s) with 400 naming body.domain', async (domain) => {
    const school = await schoolOf(h);
    expect(
      await fieldRefusal(sdkOf(h, school.owner).domains.create(school.tenantId, { domain, mode: 'join' })),
    ).toEqual({
      code: 'VALIDATION_FAILED',
      paths: ['body.domain'],
    });
  });

  it('gives at most TEACHER, and only an OWNER sets it', async () => {
    const school = await schoolOf(h);
    expect(
      await refusal(
        sdkOf(h, school.admin).domains.create(school.tenantId, {
          domain: freshDomain(),
          mode: 'join',
          role: 'TEACHER',
        }),
      ),
    ).toEqual(refused(403, 'ROLE_HIERARCHY_VIOLATION'));
    const teacherDomain = await sdkOf(h, school.owner).domains.create(school.tenantId, {
      domain: freshDomain(),
      mode: 'request',
      role: 'TEACHER',
    });
    expect(teacherDomain.role).toBe('TEACHER');
    const admin = await fieldRefusal(
      sdkOf(h, school.owner).domains.create(school.tenantId, {
        domain: freshDomain(),
        mode: 'join',
        role: 'ADMIN' as 'TEACHER',
      }),
    );
    expect(admin).toEqual({ code: 'VALIDATION_FAILED', paths: ['body.role'] });
  });

  it('refuses a domain the tenant has, and one another tenant verified (409 DOMAIN_ALREADY_CLAIMED)', async () => {
    const first = await schoolOf(h);
    const second = await schoolOf(h);
    const domain = freshDomain();
    const head = await withVerifiedEmail(h, first.owner, `head@${domain}`);
    await sdkOf(h, head).domains.create(first.tenantId, { domain, mode: 'join' });
    expect(await refusal(sdkOf(h, head).domains.create(first.tenantId, { domain, mode: 'join' }))).toEqual(
      refused(409, 'DOMAIN_ALREADY_CLAIMED'),
    );
    const rival = await withVerifiedEmail(h, second.owner, `rival@${domain}`);
    expect(await refusal(sdkOf(h, rival).domains.create(second.tenantId, { domain, mode: 'join' }))).toEqual(
      refused(409, 'DOMAIN_ALREADY_CLAIMED'),
    );
  });
});

describe('POST /admin/domains/:domainId/verify', () => {
  it('verifies a waiting domain, once, and records domain.verified', async () => {
    const school = await schoolOf(h);
    const admin = await createActor(h, { superAdmin: true });
    const added = await sdkOf(h, school.owner).domains.create(school.tenantId, {
      domain: freshDomain(),
      mode: 'join',
    });
    expect(added.verifiedAt).toBeNull();
    const verified = await sdkOf(h, admin).domains.verify(added.domainId);
    expect(verified.verifiedAt).not.toBeNull();
    expect(await sdkOf(h, admin).domains.verify(added.domainId)).toEqual(verified);
    const events = (await sdkOf(h, school.owner).auditEvents.listForTenant(school.tenantId, { limit: 20 }))
      .items;
    const verifications = events.filter((e) => e.action === 'domain.verified');
    expect(verifications).toHaveLength(1);
    expect(verifications[0]).toMatchObject({
      target: { type: 'domain', id: added.domainId },
      actor: { userId: admin.userId },
      before: { verifiedAt: null },
      after: { verifiedAt: verified.verifiedAt },
    });
    expect(events.find((e) => e.action === 'domain.created')?.after).toMatchObject({
      domainId: added.domainId,
    });
  });

  it('refuses a domain another tenant verified first (409), and an unknown id (404)', async () => {
    const first = await schoolOf(h);
    const second = await schoolOf(h);
    const admin = await createActor(h, { superAdmin: true });
    const domain = freshDomain();
    const mine = await sdkOf(h, first.owner).domains.create(first.tenantId, { domain, mode: 'join' });
    const theirs = await sdkOf(h, second.owner).domains.create(second.tenantId, { domain, mode: 'request' });
    await sdkOf(h, admin).domains.verify(theirs.domainId);
    expect(await refusal(sdkOf(h, admin).domains.verify(mine.domainId))).toEqual(
      refused(409, 'DOMAIN_ALREADY_CLAIMED'),
    );
    expect((await sdkOf(h, first.owner).domains.get(first.tenantId, mine.domainId)).verifiedAt).toBeNull();
    const events = (await sdkOf(h, first.owner).auditEvents.listForTenant(first.tenantId, { limit: 20 }))
      .items;
    expect(events.some((e) => e.action === 'domain.verified')).toBe(false);
    expect(await refusal(sdkOf(h, admin).domains.verify(crypto.randomUUID()))).toEqual(
      refused(404, 'DOMAIN_NOT_FOUND'),
    );
  });

  it('is refused to anyone but a super administrator', async () => {
    const school = await schoolOf(h);
    const added = await sdkOf(h, school.owner).domains.create(school.tenantId, {
      domain: freshDomain(),
      mode: 'join',
    });
    expect(await refusal(sdkOf(h, school.owner).domains.verify(added.domainId))).toEqual(
      refused(403, 'SUPER_ADMIN_REQUIRED'),
    );
  });
});

describe('the database', () => {
  it('holds one verified row per domain, whatever the code does', async () => {
    const first = await schoolOf(h);
    const second = await schoolOf(h);
    const domain = freshDomain();
    const row = (tenantId: string) => ({
      id: crypto.randomUUID(),
      tenantId,
      domain,
      mode: 'join' as const,
      role: 'STUDENT' as const,
      verifiedAt: new Date(),
    });
    await h.db.insert(tenantDomains).values(row(first.tenantId));
    await expect(h.db.insert(tenantDomains).values(row(second.tenantId))).rejects.toThrow();
    expect(await h.db.select().from(tenantDomains).where(eq(tenantDomains.domain, domain))).toHaveLength(1);
  });
});

describe('GET, PATCH and DELETE /tenants/:tenantId/domains[/:domainId]', () => {
  it('lists, reads, changes and removes, each change audited', async () => {
    const school = await schoolOf(h);
    const owner = sdkOf(h, school.owner);
    const a = await owner.domains.create(school.tenantId, { domain: freshDomain(), mode: 'join' });
    const b = await owner.domains.create(school.tenantId, {
      domain: freshDomain(),
      mode: 'request',
      role: 'TEACHER',
    });
    const page = await owner.domains.list(school.tenantId, { limit: 1 });
    expect(page.items.map((d) => d.domainId)).toEqual([a.domainId]);
    expect(page.nextCursor).not.toBeNull();
    const all = [];
    for await (const d of owner.domains.listAll(school.tenantId)) all.push(d.domainId);
    expect(all).toEqual([a.domainId, b.domainId]);
    expect(await sdkOf(h, school.admin).domains.get(school.tenantId, a.domainId)).toEqual(a);
    const changed = await sdkOf(h, school.admin).domains.update(school.tenantId, a.domainId, {
      mode: 'request',
    });
    expect(changed).toEqual({ ...a, mode: 'request' });
    await sdkOf(h, school.admin).domains.remove(school.tenantId, a.domainId);
    expect(await refusal(owner.domains.get(school.tenantId, a.domainId))).toEqual(
      refused(404, 'DOMAIN_NOT_FOUND'),
    );
    const actions = (await owner.auditEvents.listForTenant(school.tenantId, { limit: 20 })).items
      .filter((e) => e.target.type === 'domain' && e.target.id === a.domainId)
      .map((e) => e.action)
      .sort();
    expect(actions).toEqual(['domain.created', 'domain.removed', 'domain.updated']);
  });

  it('keeps a TEACHER domain to OWNERs: an ADMIN may neither change nor remove it, nor set TEACHER', async () => {
    const school = await schoolOf(h);
    const teacherDomain = await sdkOf(h, school.owner).domains.create(school.tenantId, {
      domain: freshDomain(),
      mode: 'join',
      role: 'TEACHER',
    });
    const admin = sdkOf(h, school.admin);
    expect(
      await refusal(admin.domains.update(school.tenantId, teacherDomain.domainId, { mode: 'request' })),
    ).toEqual(refused(403, 'ROLE_HIERARCHY_VIOLATION'));
    expect(await refusal(admin.domains.remove(school.tenantId, teacherDomain.domainId))).toEqual(
      refused(403, 'ROLE_HIERARCHY_VIOLATION'),
    );
    const student = await admin.domains.create(school.tenantId, { domain: freshDomain(), mode: 'join' });
    expect(
      await refusal(admin.domains.update(school.tenantId, student.domainId, { role: 'TEACHER' })),
    ).toEqual(refused(403, 'ROLE_HIERARCHY_VIOLATION'));
    expect(await fieldRefusal(admin.domains.update(school.tenantId, student.domainId, {}))).toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('finds no domain of another tenant, and refuses TEACHERs and STUDENTs', async () => {
    const school = await schoolOf(h);
    const other = await schoolOf(h);
    const theirs = await sdkOf(h, other.owner).domains.create(other.tenantId, {
      domain: freshDomain(),
      mode: 'join',
    });
    const owner = sdkOf(h, school.owner);
    expect(await refusal(owner.domains.get(school.tenantId, theirs.domainId))).toEqual(
      refused(404, 'DOMAIN_NOT_FOUND'),
    );
    expect(
      await refusal(owner.domains.update(school.tenantId, theirs.domainId, { mode: 'request' })),
    ).toEqual(refused(404, 'DOMAIN_NOT_FOUND'));
    expect(await refusal(owner.domains.remove(school.tenantId, theirs.domainId))).toEqual(
      refused(404, 'DOMAIN_NOT_FOUND'),
    );
    expect(await refusal(sdkOf(h, school.teacher).domains.list(school.tenantId))).toEqual(
      refused(403, 'INSUFFICIENT_ROLE'),
    );
  });
});
