/** Both drivers' results of `execute`: postgres.js answers the rows, PGlite `{ rows }`. */
export const rowsOf = <T>(result: unknown): T[] =>
  Array.isArray(result) ? (result as T[]) : ((result as { rows?: T[] }).rows ?? []);
