import type { Actor } from '../support/factories.js';
import { unique } from '../support/factories.js';
import type { TestServer } from '../support/harness.js';
import { sdkOf } from '../support/sdk.js';

/** A domain of its own for each test: verified domains are unique across the test database. */
export const freshDomain = () => `${unique('school')}.example.edu`;

/**
 * The actor signs in with a token carrying a verified address (the identity provider's word), as a
 * school's head would: the service then knows that address as theirs. Returns the actor with it.
 */
export async function withVerifiedEmail(h: TestServer, actor: Actor, email: string): Promise<Actor> {
  const token = await h.token(actor.subject, { email, emailVerified: true });
  const me = await sdkOf(h, { token }).me();
  if (me.user.email !== email) throw new Error(`the address ${email} did not become ${actor.subject}'s`);
  return { ...actor, email, token, api: h.client(token) };
}
