import { contract } from '@tms/contract';
import { type ApiFetcherArgs, initClient, tsRestFetchApi } from '@ts-rest/core';
import { NetworkError } from './errors.js';
import type { RawClientOptions } from './options.js';

const resolveToken = async (token: RawClientOptions['token']) =>
  typeof token === 'function' ? token() : token;

/**
 * The contract's routes as typed functions answering `{ status, body, headers }`, one variant per
 * declared status. Most callers want `createClient`; this is for those who branch on statuses.
 * It runs ts-rest's client, which brings the contract's zod schemas along: import it from
 * `@tms/client/raw` in a browser app (the main entry's bundles leave it out when unused).
 */
export function createRawClient(options: RawClientOptions) {
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
