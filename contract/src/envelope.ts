import { z } from 'zod';
import { RESPONSE_CODES } from './response-codes.js';

export const ResponseCodeSchema = z.enum(RESPONSE_CODES);

export const FieldErrorSchema = z.object({
  path: z.string().describe('Where the bad value is, e.g. "body.slug" or "query.limit"'),
  message: z.string(),
  row: z
    .number()
    .int()
    .min(1)
    .nullable()
    .optional()
    .describe('ROSTER_INVALID: the row, as numbered in the file'),
  column: z.string().nullable().optional().describe('ROSTER_INVALID: the column'),
  code: z.string().optional().describe('ROSTER_INVALID: what is wrong with the row (docs/rosters.md)'),
});
export type FieldError = z.infer<typeof FieldErrorSchema>;

export const ErrorEnvelopeSchema = z.object({
  success: z.literal(false),
  error: z.object({
    code: ResponseCodeSchema,
    message: z.string(),
    details: z.array(FieldErrorSchema).optional(),
    requestId: z.string(),
  }),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;

export const successEnvelope = <T extends z.ZodTypeAny>(data: T) =>
  z.object({ success: z.literal(true), data });

export const PageMetaSchema = z.object({
  nextCursor: z.string().nullable().describe('Pass as `cursor` to get the next page; null on the last page'),
  total: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('With `includeTotal=true`: how many items match the filters, on every page'),
});
export type PageMeta = z.infer<typeof PageMetaSchema>;

export const listEnvelope = <T extends z.ZodTypeAny>(item: T) =>
  z.object({ success: z.literal(true), data: z.array(item), meta: PageMetaSchema });
