/** What a verified token says of its bearer: all the service takes from an identity provider. */
export type TokenClaims = {
  sub: string;
  email?: string;
  emailVerified: boolean;
  name?: string;
};
