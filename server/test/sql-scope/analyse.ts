import { parseSync } from 'libpg-query';
import {
  type Fields,
  fieldsOf,
  forEachSubLink,
  list,
  record,
  relationNames,
  returning,
  unwrap,
} from './ast.js';
import { aliasOf, renamed, resTarget, usingEquality } from './relations.js';
import { type Condition, type Derived, type Relation, Scope } from './scope.js';
import type { TableFacts } from './scoped-tables.js';

const NOTHING: Derived = { tenantColumns: new Set() };

/**
 * Why each part of one statement that reads or writes a tenant-scoped table is not confined to one
 * tenant; empty when every part is. The rule (docs/scaling.md): every such table in a FROM, an
 * UPDATE or a DELETE has its tenant column equal to one value (a parameter, a constant, or the
 * tenant column of a relation that is itself pinned, here or in the statement around it), and
 * every INSERT writes the tenant column. Needs `loadModule()` from libpg-query first.
 */
export function scopeViolations(sql: string, tables: ReadonlyMap<string, TableFacts>): string[] {
  const analysis = new Analysis(tables);
  for (const { stmt } of parseSync(sql).stmts ?? [])
    analysis.statement(stmt, undefined, new Map(), 'statement');
  return analysis.violations;
}

type Ctes = ReadonlyMap<string, Derived>;
type Lateral = { relation: Relation; query: unknown };
/** One FROM being read: its relations, the conditions that may pin them, and where it sits. */
type From = { scope: Scope; conditions: Condition[]; laterals: Lateral[]; where: string };

class Analysis {
  readonly violations: string[] = [];

  constructor(private readonly tables: ReadonlyMap<string, TableFacts>) {}

  statement(node: unknown, parent: Scope | undefined, outer: Ctes, where: string): Derived {
    const [type, fields] = unwrap(node) ?? ['', {}];
    const ctes = this.withClause(fields.withClause, parent, outer, where);
    if (type === 'SelectStmt') return this.select(fields, parent, ctes, where);
    if (type === 'InsertStmt') return this.insert(fields, parent, ctes, where);
    if (type === 'UpdateStmt' || type === 'DeleteStmt') return this.change(type, fields, parent, ctes, where);
    const scoped = relationNames(node).filter((name) => this.tables.get(name)?.tenantColumn);
    for (const name of new Set(scoped))
      this.violations.push(`${where}: ${type} on ${name}, not a statement the check reads`);
    return NOTHING;
  }

  private withClause(clause: unknown, parent: Scope | undefined, outer: Ctes, where: string): Ctes {
    const ctes = new Map(outer);
    for (const item of list(record(clause)?.ctes)) {
      const cte = fieldsOf(item, 'CommonTableExpr');
      const name = String(cte?.ctename);
      ctes.set(
        name,
        renamed(this.statement(cte?.ctequery, parent, ctes, `${where} › with ${name}`), cte?.aliascolnames),
      );
    }
    return ctes;
  }

  private select(fields: Fields, parent: Scope | undefined, ctes: Ctes, where: string): Derived {
    if (fields.op && fields.op !== 'SETOP_NONE') {
      const left = this.statement({ SelectStmt: fields.larg }, parent, ctes, `${where} › set operation`);
      const right = this.statement({ SelectStmt: fields.rarg }, parent, ctes, `${where} › set operation`);
      const tenantColumns = new Set(
        (left.columns ?? []).filter((column, index) => {
          const other = right.columns?.[index];
          return left.tenantColumns.has(column) && other !== undefined && right.tenantColumns.has(other);
        }),
      );
      return { columns: left.columns, tenantColumns };
    }
    const scope = new Scope(parent, ctes);
    if (fields.valuesLists) return this.values(list(fields.valuesLists), scope, where);
    const from: From = {
      scope,
      conditions: [{ expr: fields.whereClause, targets: 'all' }],
      laterals: [],
      where,
    };
    for (const item of list(fields.fromClause)) this.fromItem(item, from);
    this.finish(from, [fields.targetList, fields.whereClause, fields.havingClause, fields.sortClause]);
    return scope.output(list(fields.targetList), resTarget);
  }

  private values(rows: unknown[], scope: Scope, where: string): Derived {
    const items = rows.map((row) => list(fieldsOf(row, 'List')?.items));
    forEachSubLink(items, (sub) => this.statement(sub, scope, scope.ctes, `${where} › subquery`));
    const columns = (items[0] ?? []).map((_, index) => `column${index + 1}`);
    // Several rows may name several tenants: only a single row's values are one tenant's.
    const single = items.length === 1 ? (items[0] ?? []) : [];
    return {
      columns,
      tenantColumns: new Set(columns.filter((_, index) => scope.isTenantValue(single[index]))),
    };
  }

  private insert(fields: Fields, parent: Scope | undefined, ctes: Ctes, where: string): Derived {
    const target = record(fields.relation);
    const table = String(target?.relname);
    const facts = this.tables.get(table);
    const source = fields.selectStmt ? this.statement(fields.selectStmt, parent, ctes, where) : NOTHING;
    const columns = list(fields.cols).map((col) => String(fieldsOf(col, 'ResTarget')?.name));
    const tenant = facts?.tenantColumn;
    const written = columns.length === 0 ? [...(facts?.columns ?? [])] : columns;
    if (tenant && !written.includes(tenant))
      this.violations.push(`${where}: INSERT into ${table} without ${tenant}`);
    const sourceColumn = tenant ? source.columns?.[written.indexOf(tenant)] : undefined;
    const relation: Relation = {
      name: aliasOf(target) ?? table,
      table,
      facts,
      pinned: sourceColumn !== undefined && source.tenantColumns.has(sourceColumn),
    };
    const scope = new Scope(parent, ctes);
    scope.relations.push(relation);
    const conflict = record(fields.onConflictClause);
    this.refuseTenantChange(list(conflict?.targetList), relation, where);
    forEachSubLink([conflict, returning(fields)], (sub) =>
      this.statement(sub, scope, ctes, `${where} › subquery`),
    );
    return scope.output(returning(fields), resTarget);
  }

  private change(
    type: string,
    fields: Fields,
    parent: Scope | undefined,
    ctes: Ctes,
    where: string,
  ): Derived {
    const scope = new Scope(parent, ctes);
    const from: From = {
      scope,
      conditions: [{ expr: fields.whereClause, targets: 'all' }],
      laterals: [],
      where,
    };
    const [target] = this.fromItem({ RangeVar: fields.relation }, from);
    const others = type === 'UpdateStmt' ? fields.fromClause : fields.usingClause;
    for (const item of list(others)) this.fromItem(item, from);
    if (target) this.refuseTenantChange(list(fields.targetList), target, where);
    this.finish(from, [fields.targetList, fields.whereClause, returning(fields)]);
    return scope.output(returning(fields), resTarget);
  }

  /** Pins, then reads the lateral subqueries (which may lean on those pins) and every other subquery. */
  private finish({ scope, conditions, laterals, where }: From, expressions: unknown[]): void {
    scope.pin(conditions);
    for (const lateral of laterals) {
      lateral.relation.derived = this.statement(
        lateral.query,
        scope,
        scope.ctes,
        `${where} › lateral ${lateral.relation.name}`,
      );
    }
    if (laterals.length > 0) scope.pin(conditions);
    const joins = conditions.slice(1).map((condition) => condition.expr);
    forEachSubLink([...expressions, ...joins], (sub) =>
      this.statement(sub, scope, scope.ctes, `${where} › subquery`),
    );
    for (const relation of scope.relations) {
      const tenant = relation.facts?.tenantColumn;
      if (!tenant || relation.pinned) continue;
      const alias = relation.name === relation.table ? '' : ` as ${relation.name}`;
      this.violations.push(`${where}: ${relation.table}${alias} is not filtered by ${tenant} = one value`);
    }
  }

  /** Citus cannot move a row to another shard: no statement may change its tenant column. */
  private refuseTenantChange(assignments: unknown[], relation: Relation, where: string): void {
    const tenant = relation.facts?.tenantColumn;
    const names = assignments.map((item) => fieldsOf(item, 'ResTarget')?.name);
    if (tenant && names.includes(tenant))
      this.violations.push(`${where}: changes ${relation.table}.${tenant}`);
  }

  private fromItem(item: unknown, from: From): Relation[] {
    const { scope, conditions, laterals, where } = from;
    const [type, fields] = unwrap(item) ?? ['', {}];
    if (type === 'JoinExpr') {
      const left = this.fromItem(fields.larg, from);
      const right = this.fromItem(fields.rarg, from);
      const filtered = { JOIN_INNER: [...left, ...right], JOIN_LEFT: right, JOIN_RIGHT: left }[
        String(fields.jointype)
      ];
      conditions.push({ expr: fields.quals, targets: new Set(filtered ?? []) });
      for (const name of list(fields.usingClause))
        conditions.push(usingEquality(name, left, right, filtered));
      return [...left, ...right];
    }
    const relation: Relation = { name: aliasOf(fields) ?? '', pinned: false };
    if (type === 'RangeVar') {
      const table = String(fields.relname);
      const cte = fields.schemaname ? undefined : scope.ctes.get(table);
      relation.name ||= table;
      if (cte) relation.derived = renamed(cte, record(fields.alias)?.colnames);
      else Object.assign(relation, { table, facts: this.tables.get(table) });
    } else if (type === 'RangeSubselect' && fields.lateral) {
      laterals.push({ relation, query: fields.subquery });
    } else if (type === 'RangeSubselect') {
      const derived = this.statement(
        fields.subquery,
        scope.parent,
        scope.ctes,
        `${where} › subquery ${relation.name}`,
      );
      relation.derived = renamed(derived, record(fields.alias)?.colnames);
    } else if (type === 'RangeFunction') {
      forEachSubLink(fields.functions, (sub) =>
        this.statement(sub, scope, scope.ctes, `${where} › subquery`),
      );
      relation.derived = renamed({ tenantColumns: new Set() }, record(fields.alias)?.colnames);
    } else {
      return [];
    }
    scope.relations.push(relation);
    return [relation];
  }
}
