import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import type { HttpClient } from './http-client.js';

export type Admin = { subject: string; token: string };
export type School = { tenantId: string; slug: string; admins: Admin[] };

const sign = (secret: string, claims: Record<string, unknown>, subject: string) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(secret));

export const superAdminToken = (secret: string, subject: string) => sign(secret, {}, subject);

/**
 * A tenant with `admins` ADMINs who have signed in (each claimed the membership its address was
 * given), so that the run measures their requests, not their first sight.
 */
export async function makeSchool(
  client: HttpClient,
  secret: string,
  superToken: string,
  name: string,
  admins: number,
): Promise<School> {
  const run = randomBytes(4).toString('hex');
  const slug = `${name}-${run}`;
  const created = await client.send('POST', '/admin/tenants', superToken, {
    name: slug,
    slug,
    owner: { email: `owner-${slug}@school.test` },
  });
  if (created.status !== 201) throw new Error(`tenant ${slug}: ${created.status} ${created.code}`);
  const tenantId = String(created.data?.tenantId);
  const made: Admin[] = [];
  for (let batch = 0; batch < admins; batch += 16) {
    const group = Array.from({ length: Math.min(16, admins - batch) }, (_, i) => batch + i);
    made.push(
      ...(await Promise.all(
        group.map(async (n) => {
          const email = `admin-${n}-${slug}@school.test`;
          const added = await client.send('POST', `/tenants/${tenantId}/memberships`, superToken, {
            role: 'ADMIN',
            email,
          });
          if (added.status !== 201) throw new Error(`admin ${email}: ${added.status} ${added.code}`);
          const subject = `admin-${n}-${slug}`;
          const token = await sign(secret, { email, email_verified: true }, subject);
          const me = await client.send('GET', '/me', token);
          if (me.status !== 200) throw new Error(`sign-in of ${email}: ${me.status} ${me.code}`);
          return { subject, token };
        }),
      )),
    );
  }
  return { tenantId, slug, admins: made };
}
