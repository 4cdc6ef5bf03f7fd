import { parseArgs } from 'node:util';
import { decodeJwt } from 'jose';
import { resolveAuth } from '../auth/auth-setup.js';
import { signDevToken } from '../auth/sign-token.js';
import { ConfigError, loadConfig } from '../config.js';

const USAGE =
  'usage: npm run token -- --sub SUBJECT [--email E [--email-unverified]] [--name N] [--ttl 1h]\n' +
  'Prints an HS256 token signed with AUTH_JWT_SECRET (or, outside production, the secret kept in .data/);\n' +
  '--ttl takes a duration such as 30m or 1h (the default), at most AUTH_MAX_TOKEN_LIFETIME (24h by default).';

function parseCommandLine() {
  try {
    return parseArgs({
      options: {
        sub: { type: 'string' },
        email: { type: 'string' },
        'email-unverified': { type: 'boolean' },
        name: { type: 'string' },
        ttl: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

async function main() {
  const { values } = parseCommandLine();
  if (values.help || !values.sub) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const auth = resolveAuth(loadConfig());
  if (!('secret' in auth)) {
    console.error('AUTH_JWKS_URL is set: tokens come from your identity provider, not from this command.');
    process.exit(2);
  }
  const token = await signDevToken(auth.secret, {
    sub: values.sub,
    email: values.email,
    // A development token with an email claims the invitations sent to it, unless told otherwise.
    emailVerified: values.email ? !values['email-unverified'] : undefined,
    name: values.name,
    ttl: values.ttl ?? '1h',
    issuer: auth.issuer,
    audience: auth.audience,
  });
  // The service would refuse it: say so now rather than with a 401 later.
  const { exp = 0, iat = 0 } = decodeJwt(token);
  const max = auth.maxLifetimeSeconds;
  if (max !== undefined && exp - iat > max) {
    console.error(
      `--ttl ${values.ttl} is longer than AUTH_MAX_TOKEN_LIFETIME (${max} s): the service would refuse it.`,
    );
    process.exit(2);
  }
  process.stdout.write(`${token}\n`);
}

main().catch((error: unknown) => {
  console.error(
    error instanceof ConfigError ? error.message : `could not mint a token: ${(error as Error).message}`,
  );
  process.exit(1);
});
