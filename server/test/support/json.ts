/** A response body as tests read it: its shape is what the assertions check at run time. */
// biome-ignore lint/suspicious/noExplicitAny: the assertions, not the compiler, check these bodies
export type Json = any;

export const jsonOf = async (res: Response): Promise<Json> => res.json();
