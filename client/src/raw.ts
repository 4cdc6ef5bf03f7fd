// `@tms/client/raw`: the ts-rest client, with the contract (and zod) it runs on.
export type { Contract } from '@tms/contract';
export { contract } from '@tms/contract';
export type { RawClientOptions, TokenSource } from './options.js';
export { createRawClient, type RawClient } from './raw-client.js';
