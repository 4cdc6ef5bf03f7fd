import { type Client, createClient, isApiError } from '@tms/client';
import type { ResponseCode } from '@tms/contract';
import type { TestServer } from './harness.js';

/** The typed SDK as a frontend uses it, one try per call: a refusal is what a test wants to see. */
export const sdkOf = (h: TestServer, actor: { token: string }): Client =>
  createClient({ baseUrl: h.baseUrl, token: actor.token, retries: false });

/** What an SDK call was refused with. */
export async function refusal(call: Promise<unknown>): Promise<{ status: number; code: ResponseCode }> {
  try {
    await call;
  } catch (error) {
    if (isApiError(error)) return { status: error.status, code: error.code };
    throw error;
  }
  throw new Error('expected the call to be refused');
}

export const refused = (status: number, code: ResponseCode) => ({ status, code });
