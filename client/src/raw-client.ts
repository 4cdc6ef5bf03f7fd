import { contract } from '@tms/contract';
import { type ApiFetcherArgs, initClient, tsRestFetchApi } from '@ts-rest/core';
import { NetworkError } from './errors.js';

/** A bearer token, or a function returning a fresh one (so a frontend can refresh it). */
export type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

export type ClientOptions = {
  /** Where the service runs, e.g. `https://members.example.com`. */
  baseUrl: string;
  token?: TokenSource;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
};

const resolveToken = async (token: TokenSource | undefined) =>
  typeof token === 'function' ? token() : token;

/**
 * The contract's routes as typed functions answering `{ status, body, headers }`, one variant per
 * declared status. Most callers want `createClient`; this is for those who branch on statuses.
 */
export function createRawClient(options: ClientOptions) {
  return initClient(contract, {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    baseHeaders: {},
    throwOnUnknownStatus: false,
    api: async (args: ApiFetcherArgs) => {
      const token = await resolveToken(options.token);
      const headers = { ...options.headers, ...args.headers };
      if (token) headers.authorization = `Bearer ${token}`;
      try {
        return await tsRestFetchApi({ ...args, headers });
      } catch (error) {
        throw new NetworkError(`${args.method} ${args.path} failed: ${(error as Error).message}`, {
          cause: error,
        });
      }
    },
  });
}
export type RawClient = ReturnType<typeof createRawClient>;
