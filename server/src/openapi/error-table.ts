import {
  contract,
  errorCodesOf,
  HTTP_STATUS,
  RESPONSE_CODE_MEANING,
  RESPONSE_CODES,
  type ResponseCode,
  type RouteAccess,
  routeMetadata,
} from '@tms/contract';
import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';

export const ERROR_TABLE_START = '<!-- error-table:start -->';
export const ERROR_TABLE_END = '<!-- error-table:end -->';

const routesOf = (router: AppRouter): AppRoute[] =>
  Object.values(router).flatMap((entry) => (isAppRoute(entry) ? [entry] : routesOf(entry)));

/** Names for a whole access group, so that a row does not list five routes of one kind. */
const GROUP_NAMES: Record<RouteAccess, string | undefined> = {
  public: undefined,
  authenticated: undefined,
  superAdmin: 'every platform route (`/admin/…`)',
  tenantAdmin: 'every tenant route for ADMINs (`/tenants/:tenantId/…`)',
  tenantTeacher: 'every tenant route open to TEACHERs (join codes, join requests, guardians)',
  tenantCaller: undefined,
  scimToken: undefined,
};
const ACCESS_ORDER = Object.keys(GROUP_NAMES) as RouteAccess[];

/** Which routes can answer a code, by the same derivation as the OpenAPI error lists. */
function answeredBy(code: ResponseCode, routes: AppRoute[]): string {
  const answers = (route: AppRoute) => errorCodesOf(route).includes(code);
  const guarded = routes.filter((route) => routeMetadata(route).access !== 'public');
  if (!routes.some(answers)) return 'none: answered when no route matches';
  if (guarded.every(answers) && !routes.some((route) => answers(route) && !guarded.includes(route)))
    return 'every route that needs a token';
  return ACCESS_ORDER.flatMap((access) => {
    const group = routes.filter((route) => routeMetadata(route).access === access);
    const name = GROUP_NAMES[access];
    if (name && group.length > 1 && group.every(answers)) return [name];
    return group.filter(answers).map((route) => `\`${route.method} ${route.path}\``);
  }).join(', ');
}

/** The table of every response code, by HTTP status, from the contract's declarations. */
export function renderErrorTable(): string {
  const routes = routesOf(contract);
  const codes = [...RESPONSE_CODES].sort((a, b) => HTTP_STATUS[a] - HTTP_STATUS[b]);
  return [
    '| code | HTTP | meaning | routes that can answer it |',
    '|---|---|---|---|',
    ...codes.map(
      (code) =>
        `| \`${code}\` | ${HTTP_STATUS[code]} | ${RESPONSE_CODE_MEANING[code]} | ${answeredBy(code, routes)} |`,
    ),
  ].join('\n');
}

/** The document with the generated table between its markers; the rest is left as written. */
export function withErrorTable(markdown: string): string {
  const start = markdown.indexOf(ERROR_TABLE_START);
  const end = markdown.indexOf(ERROR_TABLE_END);
  if (start < 0 || end < start) throw new Error(`expected ${ERROR_TABLE_START} … ${ERROR_TABLE_END}`);
  return `${markdown.slice(0, start + ERROR_TABLE_START.length)}\n${renderErrorTable()}\n${markdown.slice(end)}`;
}
