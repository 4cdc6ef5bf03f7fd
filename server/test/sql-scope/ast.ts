/**
 * The few shapes of libpg-query's JSON parse tree the check reads. Every node is an object with
 * one key, its type (`{ SelectStmt: {...} }`); lists are arrays of such nodes.
 */
export type Node = Record<string, unknown>;
export type Fields = Record<string, unknown>;

/** The node's type and fields, or undefined for anything that is not a node. */
export function unwrap(value: unknown): [string, Fields] | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const [type] = keys;
  if (keys.length !== 1 || !type) return undefined;
  const fields = (value as Node)[type];
  return fields && typeof fields === 'object' ? [type, fields as Fields] : undefined;
}

export function fieldsOf(value: unknown, type: string): Fields | undefined {
  const node = unwrap(value);
  return node?.[0] === type ? node[1] : undefined;
}

/** A field that holds its node's fields directly (a typed field: `relation`, `alias`, `withClause`). */
export function record(value: unknown): Fields | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : undefined;
}

/** RETURNING's expressions: `returningClause.exprs` since PostgreSQL 18's grammar. */
export function returning(fields: Fields): unknown[] {
  return list(record(fields.returningClause)?.exprs ?? fields.returningList);
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function text(value: unknown): string | undefined {
  const fields = fieldsOf(value, 'String');
  return typeof fields?.sval === 'string' ? fields.sval : undefined;
}

/** A column reference as [qualifier, column]: `t.tenant_id`, `tenant_id`, `t.*` (column '*'). */
export function columnRef(value: unknown): { qualifier?: string; column: string } | undefined {
  const fields = fieldsOf(value, 'ColumnRef');
  if (!fields) return undefined;
  const parts = list(fields.fields).map((part) => (fieldsOf(part, 'A_Star') ? '*' : (text(part) ?? '?')));
  const column = parts.at(-1);
  if (!column) return undefined;
  return parts.length > 1 ? { qualifier: parts.at(-2), column } : { column };
}

/** The expression without its casts: `$1::uuid` is `$1`. */
export function uncast(value: unknown): unknown {
  let current = value;
  for (let cast = fieldsOf(current, 'TypeCast'); cast; cast = fieldsOf(current, 'TypeCast'))
    current = cast.arg;
  return current;
}

/** A parameter or a non-null constant: one value, known when the statement is routed. */
export function isOneValue(value: unknown): boolean {
  const bare = uncast(value);
  if (fieldsOf(bare, 'ParamRef')) return true;
  const constant = fieldsOf(bare, 'A_Const');
  return Boolean(constant && !constant.isnull);
}

/** The top-level AND terms of a condition. */
export function conjuncts(value: unknown): unknown[] {
  const bool = fieldsOf(value, 'BoolExpr');
  if (bool?.boolop === 'AND_EXPR') return list(bool.args).flatMap(conjuncts);
  return value ? [value] : [];
}

/**
 * The two sides of an equality: `a = b`, and `a IN (b)` with one item. An IN list of several, or
 * `= ANY($1)`, names several tenants: not an equality (Citus routes it to several shards).
 */
export function equalitySides(value: unknown): [unknown, unknown] | undefined {
  const expr = fieldsOf(value, 'A_Expr');
  if (!expr) return undefined;
  const operator = text(list(expr.name)[0]);
  if (expr.kind === 'AEXPR_OP' && operator === '=') return [expr.lexpr, expr.rexpr];
  const items = list(fieldsOf(expr.rexpr, 'List')?.items);
  if (expr.kind === 'AEXPR_IN' && operator === '=' && items.length === 1) return [expr.lexpr, items[0]];
  return undefined;
}

/** Calls `visit` with every subquery (SubLink) in an expression, without entering it. */
export function forEachSubLink(value: unknown, visit: (subselect: unknown) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) forEachSubLink(item, visit);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const sublink = fieldsOf(value, 'SubLink');
  if (sublink) {
    forEachSubLink(sublink.testexpr, visit);
    visit(sublink.subselect);
    return;
  }
  for (const child of Object.values(value)) forEachSubLink(child, visit);
}

/** Every table name a statement mentions anywhere (RangeVar), CTE names included. */
export function relationNames(value: unknown, names: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) relationNames(item, names);
  } else if (value && typeof value === 'object') {
    const range = fieldsOf(value, 'RangeVar');
    if (typeof range?.relname === 'string') names.push(range.relname);
    for (const child of Object.values(value)) relationNames(child, names);
  }
  return names;
}
