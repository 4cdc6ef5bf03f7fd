import { is } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import * as schema from '../../src/db/schema.js';

/** The column that names a row's tenant: on Citus, the distribution column (docs/scaling.md). */
export const TENANT_COLUMN = 'tenant_id';

export type TableFacts = {
  columns: ReadonlySet<string>;
  /** Set for a tenant-scoped table: the column a statement must pin to one tenant. */
  tenantColumn?: string;
};

/**
 * Every table of the drizzle schema with its columns, and which are tenant-scoped: those with a
 * tenant_id column, and the table their tenant_id foreign keys point at (tenants, keyed by its
 * id). Read from the schema at run time, so that a new table is checked the day it is added.
 */
export function schemaTables(source: Record<string, unknown> = schema): Map<string, TableFacts> {
  const configs = Object.values(source)
    .filter((value): value is PgTable => is(value, PgTable))
    .map((table) => getTableConfig(table));
  const tenantTables = new Map<string, string>();
  for (const config of configs) {
    for (const foreignKey of config.foreignKeys) {
      const reference = foreignKey.reference();
      const index = reference.columns.findIndex((column) => column.name === TENANT_COLUMN);
      const target = reference.foreignColumns[index];
      if (index >= 0 && target) tenantTables.set(getTableConfig(reference.foreignTable).name, target.name);
    }
  }
  const tables = new Map<string, TableFacts>();
  for (const config of configs) {
    const columns = new Set(config.columns.map((column) => column.name));
    const tenantColumn = columns.has(TENANT_COLUMN) ? TENANT_COLUMN : tenantTables.get(config.name);
    tables.set(config.name, { columns, ...(tenantColumn && { tenantColumn }) });
  }
  return tables;
}
