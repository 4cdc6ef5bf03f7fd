import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { pageSecurityHeaders } from '../http/browser-security.js';
import { buildOpenApiDocument } from './document.js';

/** Where the document is served; /docs links to it. */
export const OPENAPI_PATH = '/openapi.json';

/** Swagger UI serves its own assets, so /docs works on a machine with no internet. */
export function docsRouter(version: string): Router {
  const document = buildOpenApiDocument(version);
  const router = Router();
  // Pages a browser renders get helmet's full set, with a policy that lets Swagger UI run.
  router.use([OPENAPI_PATH, '/docs'], pageSecurityHeaders);
  router.get(OPENAPI_PATH, (_req, res) => {
    res.json(document);
  });
  // Swagger UI reads the document from /openapi.json, rather than a copy inlined in its script: it
  // then shows that address, as a link, under the title. (serveFiles keeps these options to this
  // router; swaggerUi.serve would share one init script between every app of the process.)
  const options = {
    customSiteTitle: 'Tenant Membership Service',
    swaggerUrl: OPENAPI_PATH,
    swaggerOptions: { persistAuthorization: true, displayRequestDuration: true },
  };
  router.use('/docs', swaggerUi.serveFiles(undefined, options), swaggerUi.setup(undefined, options));
  return router;
}
