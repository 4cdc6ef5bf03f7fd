import { isDeepStrictEqual } from 'node:util';

type Schema = Record<string, unknown>;
type Parameter = { in: string; schema?: Schema; style?: string; explode?: boolean };

/**
 * A query parameter that takes one value or several (`status=ACTIVE`, or the key repeated:
 * `status=ACTIVE&status=SUSPENDED`) is, in the contract, a zod union of the value and a list of it,
 * which zod-openapi writes as a `oneOf` of the two. In a query string they are one thing: with
 * style `form` and `explode` (OpenAPI's defaults for the query, written out here for the tools that
 * do not apply them), a key given once is a list of one. So the parameter is declared as the list.
 *
 * The `oneOf` was not only redundant: a validator that reads a single value as a list of one, and
 * a list of one as its value (ajv's `coerceTypes: 'array'`, as express-openapi-validator offers),
 * found `status=ACTIVE` matching both alternatives, which `oneOf` forbids, and refused a request
 * the server accepts. The server's parsing (the union) is unchanged: what it accepts, and the
 * errors it answers, are the contract's.
 */
export function repeatableQueryParameter<P extends Parameter>(parameter: P): P {
  const alternatives = parameter.in === 'query' ? parameter.schema?.oneOf : undefined;
  if (!Array.isArray(alternatives) || alternatives.length !== 2) return parameter;
  const list = (alternatives as Schema[]).find((alternative) => alternative.type === 'array');
  const one = (alternatives as Schema[]).find((alternative) => alternative !== list);
  if (!list || !one || !isDeepStrictEqual(list.items, one)) return parameter;
  const { oneOf: _oneOf, ...rest } = parameter.schema ?? {};
  return { ...parameter, style: 'form', explode: true, schema: { ...list, ...rest } };
}
