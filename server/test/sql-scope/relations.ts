import { type Fields, fieldsOf, list, record } from './ast.js';
import type { Condition, Derived, Relation } from './scope.js';

/** Helpers of analyse.ts: names, aliases and the columns a derived relation gives. */

export function resTarget(target: unknown): { name?: string; val: unknown } {
  const fields = fieldsOf(target, 'ResTarget');
  return { name: typeof fields?.name === 'string' ? fields.name : undefined, val: fields?.val };
}

export function aliasOf(fields: Fields | undefined): string | undefined {
  const name = record(fields?.alias)?.aliasname;
  return typeof name === 'string' ? name : undefined;
}

/** A derived relation's columns under the names an alias list gives them. */
export function renamed(derived: Derived, aliases: unknown): Derived {
  const names = list(aliases).map((name) => String(fieldsOf(name, 'String')?.sval));
  if (names.length === 0) return derived;
  const columns = derived.columns ?? [];
  const tenantColumns = new Set(names.filter((_, index) => derived.tenantColumns.has(columns[index] ?? '')));
  return { columns: [...names, ...columns.slice(names.length)], tenantColumns };
}

/** `JOIN … USING (c)`: `left.c = right.c`, as a condition on the same relations as the ON would be. */
export function usingEquality(
  name: unknown,
  left: Relation[],
  right: Relation[],
  filtered?: Relation[],
): Condition {
  const column = String(fieldsOf(name, 'String')?.sval);
  const side = (relations: Relation[]) =>
    relations.find((r) => r.facts?.columns.has(column) || r.derived?.columns?.includes(column));
  const ref = (relation?: Relation) => ({
    ColumnRef: { fields: [{ String: { sval: relation?.name ?? '?' } }, { String: { sval: column } }] },
  });
  const expr = {
    A_Expr: {
      kind: 'AEXPR_OP',
      name: [{ String: { sval: '=' } }],
      lexpr: ref(side(left)),
      rexpr: ref(side(right)),
    },
  };
  return { expr, targets: new Set(filtered ?? []) };
}
