import { isProxy } from 'node:util/types';
import { Column, getTableName, is, SQL, Subquery } from 'drizzle-orm';

/** What a drizzle prepared query keeps of its selection: each column's path in the result, and its field. */
type SelectedField = { path: string[]; field: unknown };
type Decoder = { mapFromDriverValue(value: unknown): unknown };
type Row = Record<string, unknown>;

/** drizzle keeps a SQL field's decoder (its `mapWith`) out of its types. */
const decoderOfSql = (sql: unknown) => (sql as { decoder: Decoder }).decoder;

/**
 * A column of an aliased table (a CTE's) is a Proxy over the table's column: every property its
 * decoder reads (a timestamp's `withTimezone`, for each row) goes through the proxy's handler. Its
 * decoder is a plain copy instead, with the same prototype and the same values.
 */
const plainDecoder = (column: object): Decoder =>
  isProxy(column) ? Object.assign(Object.create(Object.getPrototypeOf(column)), column) : (column as Decoder);

const decoderOf = (field: unknown): Decoder => {
  if (is(field, Column)) return plainDecoder(field);
  if (is(field, SQL)) return decoderOfSql(field);
  if (is(field, Subquery)) return decoderOfSql((field as unknown as { _: { sql: SQL } })._.sql);
  return decoderOfSql((field as { sql: SQL }).sql);
};

/** The result's shape: for each key, the index of the column it holds, or the keys of an object. */
type Shape = Map<string, number | Shape>;

const shapeOf = (fields: SelectedField[]): Shape => {
  const shape: Shape = new Map();
  fields.forEach(({ path }, index) => {
    let node = shape;
    for (const key of path.slice(0, -1)) {
      const child = node.get(key);
      if (child instanceof Map) node = child;
      else {
        const made: Shape = new Map();
        node.set(key, made);
        node = made;
      }
    }
    node.set(path[path.length - 1] as string, index);
  });
  return shape;
};

const literalOf = (shape: Shape): string =>
  `{${[...shape]
    .map(([key, value]) => {
      const expression =
        typeof value === 'number'
          ? `r[${value}] === null ? null : d[${value}].mapFromDriverValue(r[${value}])`
          : literalOf(value);
      return `${JSON.stringify(key)}: ${expression}`;
    })
    .join(', ')}}`;

/**
 * The joined objects drizzle gives as null when the join matched nothing: an object of a table
 * that may be missing (a left join), all of whose columns are that table's, when its first column
 * is null (mapResultRow's rule, decided here once instead of per row).
 */
function nullableJoins(fields: SelectedField[], joinsNotNullableMap: Record<string, boolean> | undefined) {
  if (!joinsNotNullableMap) return [];
  const byObject = new Map<string, { table: string | false; firstKey: string }>();
  for (const { path, field } of fields) {
    if (!is(field, Column) || path.length !== 2) continue;
    const [object, key] = path as [string, string];
    const table = getTableName(field.table);
    const seen = byObject.get(object);
    if (!seen) byObject.set(object, { table, firstKey: key });
    else if (seen.table !== table) seen.table = false;
  }
  return [...byObject]
    .filter(([, { table }]) => table !== false && !joinsNotNullableMap[table])
    .map(([object, { firstKey }]) => ({ object, firstKey }));
}

/**
 * drizzle's row mapping (utils.ts: mapResultRow), made once per statement: mapResultRow asks each
 * column's kind of every row (walking prototype chains), and builds the result key by key; this
 * builds it as one object literal of the statement's shape, its decoders called as drizzle calls
 * them. The result is the same object, the same nulls for a join that matched nothing
 * (test/database/row-mapper.test.ts checks both against drizzle's own).
 */
export function rowMapperOf(
  fields: SelectedField[],
  joinsNotNullableMap: Record<string, boolean> | undefined,
): (rows: unknown[][]) => Row[] {
  const decoders = fields.map(({ field }) => decoderOf(field));
  const nullable = nullableJoins(fields, joinsNotNullableMap)
    .map(({ object, firstKey }) => {
      const at = `o[${JSON.stringify(object)}]`;
      return `if (${at}[${JSON.stringify(firstKey)}] === null) ${at} = null;`;
    })
    .join('\n');
  // Keys are written as JSON strings, values read by index: nothing of the input becomes code.
  const mapRow = new Function(
    'r',
    'd',
    `const o = ${literalOf(shapeOf(fields))};\n${nullable}\nreturn o;`,
  ) as (row: unknown[], decoders: Decoder[]) => Row;
  return (rows) => rows.map((row) => mapRow(row, decoders));
}

/**
 * Gives a drizzle prepared query that maps its rows with drizzle's per-row mapping the mapper above
 * instead. Left alone: a query that maps its rows its own way (relational queries), or none.
 */
export function withRowMapper(query: object): void {
  const prepared = query as {
    fields?: SelectedField[];
    joinsNotNullableMap?: Record<string, boolean>;
    customResultMapper?: unknown;
    queryString?: unknown;
  };
  if (typeof prepared.queryString !== 'string' || !Array.isArray(prepared.fields)) return;
  if (prepared.customResultMapper) return;
  prepared.customResultMapper = rowMapperOf(prepared.fields, prepared.joinsNotNullableMap);
}
