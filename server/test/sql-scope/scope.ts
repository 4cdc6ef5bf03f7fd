import { columnRef, conjuncts, equalitySides, isOneValue, uncast } from './ast.js';
import type { TableFacts } from './scoped-tables.js';

/** What a CTE, a subquery or a RETURNING gives: its columns, and which carry one tenant's id. */
export type Derived = { columns?: string[]; tenantColumns: Set<string> };

export type Relation = {
  /** The name the statement calls it by: its alias, or the table's name. */
  name: string;
  table?: string;
  facts?: TableFacts;
  derived?: Derived;
  /** Its tenant column is equal to one value: a parameter, a constant, or another pinned tenant column. */
  pinned: boolean;
};

/**
 * A condition and the relations it may pin. A WHERE term filters every relation of its FROM; the
 * ON term of a LEFT JOIN filters only the right side (the left keeps its rows either way), of a
 * FULL JOIN neither.
 */
export type Condition = { expr: unknown; targets: 'all' | Set<Relation> };

function hasColumn(relation: Relation, column: string): boolean {
  return Boolean(relation.facts?.columns.has(column) || relation.derived?.columns?.includes(column));
}

/** The relations of one FROM (one SELECT, UPDATE or DELETE), inside those of the statements around it. */
export class Scope {
  readonly relations: Relation[] = [];

  constructor(
    readonly parent: Scope | undefined,
    readonly ctes: ReadonlyMap<string, Derived>,
  ) {}

  /** The relation a column reference names, here or (correlated) in a scope around this one. */
  resolve(expr: unknown): { relation: Relation; column: string } | undefined {
    const ref = columnRef(uncast(expr));
    if (!ref) return undefined;
    const { qualifier, column } = ref;
    const relation = this.relations.find((candidate) =>
      qualifier === undefined ? hasColumn(candidate, column) : candidate.name === qualifier,
    );
    return relation ? { relation, column } : this.parent?.resolve(expr);
  }

  /** Whether the expression is one tenant's id, known when the statement is routed. */
  isTenantValue(expr: unknown): boolean {
    if (isOneValue(expr)) return true;
    const found = this.resolve(expr);
    if (!found) return false;
    const { relation, column } = found;
    return (
      (relation.pinned && relation.facts?.tenantColumn === column) ||
      Boolean(relation.derived?.tenantColumns.has(column))
    );
  }

  /** Pins what the conditions pin, until nothing more is: `b.tenant_id = a.tenant_id` follows `a`. */
  pin(conditions: Condition[]): void {
    const terms = conditions.flatMap(({ expr, targets }) =>
      conjuncts(expr).map((term) => ({ term, targets })),
    );
    for (let changed = true; changed; ) {
      changed = false;
      for (const { term, targets } of terms) {
        const sides = equalitySides(term);
        if (!sides) continue;
        for (const [column, value] of [sides, [sides[1], sides[0]]]) {
          const found = this.resolve(column);
          const relation = found?.relation;
          if (!relation || relation.pinned || !this.relations.includes(relation)) continue;
          if (relation.facts?.tenantColumn !== found.column) continue;
          if (targets !== 'all' && !targets.has(relation)) continue;
          if (!this.isTenantValue(value)) continue;
          relation.pinned = true;
          changed = true;
        }
      }
    }
  }

  /** The columns a target list (or RETURNING) gives, `*` expanded where the relation's are known. */
  output(targets: unknown[], named: (target: unknown) => { name?: string; val: unknown }): Derived {
    const derived: Derived = { columns: [], tenantColumns: new Set() };
    for (const target of targets) {
      const { name, val } = named(target);
      const ref = columnRef(val);
      if (ref?.column === '*') {
        const expanded = this.relations.filter(
          (r) => ref.qualifier === undefined || r.name === ref.qualifier,
        );
        for (const relation of expanded) this.expand(relation, derived);
        continue;
      }
      const column = name ?? ref?.column ?? '?column?';
      derived.columns?.push(column);
      if (this.isTenantValue(val)) derived.tenantColumns.add(column);
    }
    return derived;
  }

  private expand(relation: Relation, into: Derived): void {
    const columns = relation.facts ? [...relation.facts.columns] : relation.derived?.columns;
    if (!columns) {
      into.columns = undefined;
      return;
    }
    into.columns?.push(...columns);
    const tenant = relation.facts?.tenantColumn;
    if (tenant && relation.pinned) into.tenantColumns.add(tenant);
    for (const column of relation.derived?.tenantColumns ?? []) into.tenantColumns.add(column);
  }
}
