/**
 * CSV injection (OWASP): a spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` as a
 * formula (`=HYPERLINK(...)` sends what it is given to another site when clicked), and one that
 * starts with a tab or a carriage return can hide such a start. The export writes values that
 * people typed (names, addresses), so it cannot leave that to its readers.
 */
const FORMULA_STARTS = new Set(['=', '+', '-', '@', '\t', '\r']);

/** What an exported cell is prefixed with when a spreadsheet would run it: the import removes it again. */
export const NEUTRALISING_PREFIX = "'";

/** Whether a spreadsheet would read the cell as a formula. */
export const startsLikeFormula = (value: string): boolean => FORMULA_STARTS.has(value.charAt(0));

/** The cell as the export writes it: prefixed with `'` when a spreadsheet would run it, else unchanged. */
export const neutraliseCell = (value: string): string =>
  startsLikeFormula(value) ? NEUTRALISING_PREFIX + value : value;
