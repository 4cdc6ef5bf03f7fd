import { SignJWT } from 'jose';

export type DevTokenInput = {
  sub: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
  ttl?: string;
  issuer?: string;
  audience?: string;
};

/** Mints an HS256 token for development and tests; production tokens come from an identity provider. */
export async function signDevToken(secret: string, input: DevTokenInput): Promise<string> {
  const claims: Record<string, unknown> = {};
  if (input.email !== undefined) claims.email = input.email;
  if (input.emailVerified !== undefined) claims.email_verified = input.emailVerified;
  if (input.name !== undefined) claims.name = input.name;
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(input.sub)
    .setIssuedAt()
    .setExpirationTime(input.ttl ?? '1h');
  if (input.issuer) jwt = jwt.setIssuer(input.issuer);
  if (input.audience) jwt = jwt.setAudience(input.audience);
  return jwt.sign(new TextEncoder().encode(secret));
}
