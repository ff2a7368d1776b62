import { z } from 'zod';

/** Platform v2 success envelope: `{ success: true, data }`. */
export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

export interface Pagination {
  total: number;
  limit: number;
  offset: number;
}

export function paged<T>(
  data: T[],
  pagination: Pagination,
): { success: true; data: T[]; pagination: Pagination } {
  return { success: true, data, pagination };
}

export const envelopeOf = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });

export const PaginationSchema = z.object({
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const pagedEnvelopeOf = <T extends z.ZodType>(item: T) =>
  z.object({ success: z.literal(true), data: z.array(item), pagination: PaginationSchema });

/** `limit` (default 50, 1..200) and `offset` (default 0) of every platform v2 list. */
export const paginationQuery = {
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(50)
    .meta({ description: 'Page size (1-200, default 50)' }),
  offset: z.coerce.number().int().min(0).default(0).meta({ description: 'Items to skip (default 0)' }),
};

export const timestamp = () => z.iso.datetime().meta({ description: 'ISO 8601 UTC timestamp' });
