import { z } from 'zod';
import { text } from './text.js';

export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 100;

export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(PAGE_SIZE_MAX).default(PAGE_SIZE_DEFAULT),
  cursor: z.string().min(1).max(200).optional().describe('The `meta.nextCursor` of the previous page'),
};

/** A free-text filter: case-insensitive substring. */
export const searchQuery = text().trim().min(1).max(200);
