import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { CLOCK_TOLERANCE_SECONDS, createTokenVerifier } from '../../src/auth/token-verifier.js';
import { UnauthenticatedError } from '../../src/errors/access-errors.js';

const SECRET = 'unit-secret-that-is-long-enough-for-hs256-0123456789';
const DAY = 86_400;
const now = () => Math.floor(Date.now() / 1000);
const sign = (claims: Record<string, unknown>) =>
  new SignJWT({ sub: 'someone', ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(SECRET));

async function refusal(verify: (token: string) => Promise<unknown>, token: string): Promise<string> {
  const error = await verify(token).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UnauthenticatedError);
  return (error as Error).message;
}

describe('token lifetime rules', () => {
  const verify = createTokenVerifier({ secret: SECRET });

  it('requires exp', async () => {
    expect(await refusal(verify, await sign({ iat: now() }))).toMatch(/no expiry \(exp\)/);
  });

  it('allows exp - iat up to 24 h by default, and not a second more', async () => {
    const iat = now() - 10;
    await expect(verify(await sign({ iat, exp: iat + DAY }))).resolves.toMatchObject({ sub: 'someone' });
    expect(await refusal(verify, await sign({ iat, exp: iat + DAY + 1 }))).toMatch(
      /lifetime .* maximum of 86400 seconds/,
    );
  });

  it('without iat, measures exp from now, with the clock tolerance', async () => {
    await expect(verify(await sign({ exp: now() + DAY }))).resolves.toBeDefined();
    expect(await refusal(verify, await sign({ exp: now() + DAY + CLOCK_TOLERANCE_SECONDS + 5 }))).toMatch(
      /lifetime/,
    );
  });

  it('refuses iat beyond the clock tolerance in the future', async () => {
    const within = now() + CLOCK_TOLERANCE_SECONDS - 2;
    await expect(verify(await sign({ iat: within, exp: within + 60 }))).resolves.toBeDefined();
    const beyond = now() + CLOCK_TOLERANCE_SECONDS + 5;
    expect(await refusal(verify, await sign({ iat: beyond, exp: beyond + 60 }))).toMatch(
      /issued in the future/,
    );
  });

  it('takes the maximum from its options', async () => {
    const hourly = createTokenVerifier({ secret: SECRET, maxLifetimeSeconds: 3600 });
    const iat = now();
    await expect(hourly(await sign({ iat, exp: iat + 3600 }))).resolves.toBeDefined();
    expect(await refusal(hourly, await sign({ iat, exp: iat + 3601 }))).toMatch(/maximum of 3600 seconds/);
  });
});
