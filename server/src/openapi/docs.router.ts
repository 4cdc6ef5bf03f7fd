import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { pageSecurityHeaders } from '../http/browser-security.js';
import { buildOpenApiDocument } from './document.js';

/** Swagger UI serves its own assets, so /docs works on a machine with no internet. */
export function docsRouter(version: string): Router {
  const document = buildOpenApiDocument(version);
  const router = Router();
  // Pages a browser renders get helmet's full set, with a policy that lets Swagger UI run.
  router.use(['/openapi.json', '/docs'], pageSecurityHeaders);
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use(
    '/docs',
    swaggerUi.serve,
    swaggerUi.setup(document, {
      customSiteTitle: 'Tenant Membership Service',
      swaggerOptions: { persistAuthorization: true, displayRequestDuration: true },
    }),
  );
  return router;
}
