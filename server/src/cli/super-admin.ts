import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { grantSuperAdmin, revokeSuperAdmin } from '../modules/users/super-admins.service.js';

const USAGE =
  'usage: npm run super-admin -- grant|revoke --sub SUBJECT\n' +
  'Grants or revokes the super-administrator flag of a token subject, on the configured database.';

function parseCommandLine() {
  try {
    return parseArgs({
      options: { sub: { type: 'string' } },
      allowPositionals: true,
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

async function main() {
  const { values, positionals } = parseCommandLine();
  const [action] = positionals;
  if ((action !== 'grant' && action !== 'revoke') || !values.sub) {
    console.error(USAGE);
    process.exit(2);
  }
  const database = await openDatabase(loadConfig().database);
  try {
    if (action === 'grant') {
      await grantSuperAdmin(database.db, values.sub);
      console.warn(`${values.sub} is a super administrator`);
    } else {
      const found = await revokeSuperAdmin(database.db, values.sub);
      console.warn(
        found ? `${values.sub} is no longer a super administrator` : `no user has subject ${values.sub}`,
      );
    }
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : (error as Error).message);
  process.exit(1);
});
