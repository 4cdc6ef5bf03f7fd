/**
 * Whether a directory's string can be stored and compared as text: no NUL (PostgreSQL refuses it:
 * a 500 there, a 400 here) and no lone surrogate (it would be stored as U+FFFD).
 */
export const storable = (text: string): boolean => !text.includes('\u0000') && !/\p{Cs}/u.test(text);
