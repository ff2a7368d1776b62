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

/**
 * A number read from a query or path string by `schema` (a `z.coerce.number()` chain), except that a
 * blank or all-whitespace value is refused: coercion reads it as 0 (`Number('')`), so `?offset=`
 * would quietly mean 0 (docs/api-contract.md "Request validation": numbers are never clamped).
 */
export const numberFromString = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? Number.NaN : value), schema);

/** `limit` (default 50, 1..200) and `offset` (default 0) of every platform v2 list. */
export const paginationQuery = {
  limit: numberFromString(z.coerce.number().int().min(1).max(200).default(50)).meta({
    description: 'Page size (1-200, default 50)',
  }),
  offset: numberFromString(z.coerce.number().int().min(0).default(0)).meta({
    description: 'Items to skip (default 0)',
  }),
};

export const timestamp = () => z.iso.datetime().meta({ description: 'ISO 8601 UTC timestamp' });
