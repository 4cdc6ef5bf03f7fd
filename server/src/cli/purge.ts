import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { purgeExpiredAuditEvents } from '../modules/audit/audit-retention.js';
import { purgeDeletedTenants } from '../modules/tenants/tenant-deletion.service.js';
import { retentionCutoff } from '../modules/tenants/tenant-retention.js';

const USAGE =
  'usage: npm run purge\n' +
  'Removes for good the tenants deleted more than TENANT_RETENTION_DAYS (default 30) ago, on the\n' +
  'configured database, and prints each one; then the audit events older than AUDIT_RETENTION_DAYS\n' +
  '(default 365). Safe beside running servers, which purge too.';

function parseCommandLine() {
  try {
    return parseArgs({ options: { help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

async function main() {
  const { values } = parseCommandLine();
  if (values.help) {
    console.error(USAGE);
    process.exit(0);
  }
  const config = loadConfig();
  const retention = { days: config.tenants.retentionDays };
  const now = new Date();
  const database = await openDatabase(config.database);
  try {
    const purged = await purgeDeletedTenants(database.db, retention, { now });
    for (const tenant of purged) {
      process.stdout.write(
        `purged ${tenant.id} ${tenant.slug} (deleted ${tenant.deletedAt?.toISOString()})\n`,
      );
    }
    const cutoff = retentionCutoff(now, retention).toISOString();
    console.warn(`${purged.length} tenant(s) purged: those deleted at or before ${cutoff}`);
    const events = await purgeExpiredAuditEvents(database.db, config.auditRetentionDays, { now });
    console.warn(
      `${events} audit event(s) older than AUDIT_RETENTION_DAYS (${config.auditRetentionDays}) purged`,
    );
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : (error as Error).message);
  process.exit(1);
});
