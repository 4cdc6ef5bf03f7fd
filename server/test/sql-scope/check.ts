import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprintSync, loadModule } from 'libpg-query';
import { scopeViolations } from './analyse.js';
import type { CapturedLine } from './capture.js';
import { type CrossTenantStatement, crossTenantStatements } from './cross-tenant.js';
import { schemaTables, type TableFacts } from './scoped-tables.js';
import { sourceOf } from './source-hint.js';

/** One distinct statement text, with every database, test and origin it was seen from. */
export type Statement = {
  sql: string;
  databases: Set<string>;
  tests: Set<string>;
  origins: Set<string>;
  /** The functions that sent it (their frames' names), for the allow-list's families. */
  senders: Set<string>;
};

export type Offender = { statement: Statement; violations: string[] };

export type Outcome = {
  statements: Statement[];
  opened: number;
  allowed: Map<CrossTenantStatement, Statement[]>;
  offenders: Offender[];
};

/** The statements the workers of one run wrote (see capture.ts), each text once. */
export function readCaptured(dir: string): { statements: Statement[]; opened: number } {
  const byText = new Map<string, Statement>();
  let opened = 0;
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (!line) continue;
      const captured = JSON.parse(line) as CapturedLine;
      if (captured.kind === 'open') {
        opened++;
        continue;
      }
      const statement = byText.get(captured.sql) ?? {
        sql: captured.sql,
        databases: new Set(),
        tests: new Set(),
        origins: new Set(),
        senders: new Set(),
      };
      statement.databases.add(captured.database);
      if (captured.test) statement.tests.add(captured.test);
      if (captured.origin) statement.origins.add(captured.origin);
      if (captured.sentBy) statement.senders.add(captured.sentBy);
      byText.set(captured.sql, statement);
    }
  }
  return { statements: [...byText.values()], opened };
}

/** Sorts every statement into confined to one tenant, listed as cross-tenant (with its reason), or offending. */
export async function checkStatements(
  statements: Statement[],
  allowList: readonly CrossTenantStatement[] = crossTenantStatements(),
  tables: ReadonlyMap<string, TableFacts> = schemaTables(),
): Promise<Omit<Outcome, 'opened'>> {
  await loadModule();
  // The fingerprint ignores constants, parameter numbers and layout: the same statement, however sent.
  const listed = new Map(allowList.map((entry) => [fingerprintSync(entry.sql), entry]));
  const families = allowList.filter((entry) => entry.sentBy !== undefined);
  const familyOf = (statement: Statement) =>
    families.find(
      (entry) =>
        entry.sentBy !== undefined &&
        statement.senders.has(entry.sentBy) &&
        [...statement.origins].some((origin) => origin.startsWith(`${entry.source.split(':')[0]}:`)),
    );
  const allowed = new Map<CrossTenantStatement, Statement[]>();
  const offenders: Offender[] = [];
  for (const statement of statements) {
    let violations: string[];
    let fingerprint: string;
    try {
      violations = scopeViolations(statement.sql, tables);
      fingerprint = fingerprintSync(statement.sql);
    } catch (error) {
      offenders.push({ statement, violations: [`does not parse: ${(error as Error).message}`] });
      continue;
    }
    if (violations.length === 0) continue;
    const entry = listed.get(fingerprint) ?? familyOf(statement);
    if (entry) allowed.set(entry, [...(allowed.get(entry) ?? []), statement]);
    else offenders.push({ statement, violations });
  }
  return { statements, allowed, offenders };
}

const oneLine = (sql: string) => sql.replace(/\s+/g, ' ').trim();

/** What a failed check prints: each offending statement, why, where it came from, and its allow-list entry. */
export function describeOffenders(offenders: Offender[]): string {
  const parts = offenders.map(({ statement, violations }, index) => {
    const from = [...new Set([...statement.origins, sourceOf(statement.sql)].filter(Boolean))];
    const tests = [...statement.tests].slice(0, 5).join(', ') || 'unknown';
    const entry = { reason: '…', source: from[0] ?? [...statement.tests][0] ?? '…', sql: statement.sql };
    return [
      `${index + 1}. ${oneLine(statement.sql)}`,
      ...violations.map((violation) => `   - ${violation}`),
      `   sent by: ${from.length > 0 ? from.join(', ') : 'unknown (the query builder leaves no trace)'}`,
      `   in tests: ${tests} (${[...statement.databases].join(', ')})`,
      `   if it truly crosses tenants, add to test/sql-scope/cross-tenant.json, with a reason from cross-tenant.ts:`,
      `   ${JSON.stringify(entry)}`,
    ].join('\n');
  });
  return [
    `SQL tenant scope: ${offenders.length} statement(s) touch a tenant-scoped table without one tenant_id (docs/scaling.md):`,
    ...parts,
  ].join('\n\n');
}

/** The one line a passing run prints: how much was checked, and how much of it crosses tenants on purpose. */
export function summarise(outcome: Outcome): string {
  const perDatabase = new Map<string, number>();
  for (const statement of outcome.statements) {
    for (const database of statement.databases)
      perDatabase.set(database, (perDatabase.get(database) ?? 0) + 1);
  }
  const reasons = new Map<string, number>();
  for (const entry of outcome.allowed.keys()) reasons.set(entry.reason, (reasons.get(entry.reason) ?? 0) + 1);
  const databases = [...perDatabase].map(([name, count]) => `${name} ${count}`).join(', ');
  const listed = [...reasons].map(([reason, count]) => `${reason} ${count}`).join(', ');
  return (
    `SQL tenant scope: ${outcome.statements.length} distinct statements (${databases || 'none'}); ` +
    `${outcome.allowed.size} cross-tenant by the allow-list (${listed || 'none'}); ${outcome.offenders.length} offending`
  );
}
