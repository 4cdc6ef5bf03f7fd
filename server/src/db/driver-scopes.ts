/**
 * postgres.js's `begin` and `savepoint` arguments (options first, the callback last; or a tagged
 * template), with the callback handed `wrap(tx)` in place of the transaction handle `tx`: how this
 * folder's wrappers of the driver (pool-activity.ts, prepared-texts.ts) reach a transaction's
 * statements.
 */
export function withWrappedScope<T>(args: unknown[], wrap: (tx: T) => T): unknown[] {
  const last = args.length - 1;
  const fn = args[last];
  if (typeof fn !== 'function') return args;
  const scoped = [...args];
  scoped[last] = (tx: T) => fn(wrap(tx));
  return scoped;
}
