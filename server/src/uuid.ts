const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A cheap check for the hot path, where a zod parse would cost more than the request's guard. */
export const isUuid = (value: string): boolean => UUID.test(value);
