/**
 * What @anatine/zod-openapi writes for two zod shapes is not valid OpenAPI 3.0, and validators
 * (Redocly's lint, generated clients) reject the examples checked against it:
 * - `z.unknown()` becomes `{ nullable: true }`, and `nullable` means nothing without a `type`:
 *   the empty schema `{}`, which already allows anything (null included), is what is meant;
 * - a nullable `z.enum` keeps `nullable: true` beside an `enum` without null, which a validator
 *   reads as "null is not one of the values": null is added to the enum, as OpenAPI 3.0.3 says.
 * This walks the generated document and writes both as they should be, in place.
 */
export function fixNullableSchemas<T>(node: T): T {
  if (Array.isArray(node)) {
    for (const item of node) fixNullableSchemas(item);
    return node;
  }
  if (!node || typeof node !== 'object') return node;
  const schema = node as Record<string, unknown>;
  if (schema.nullable === true && schema.type === undefined && !('$ref' in schema)) delete schema.nullable;
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null))
    schema.enum = [...schema.enum, null];
  for (const value of Object.values(schema)) fixNullableSchemas(value);
  return node;
}
