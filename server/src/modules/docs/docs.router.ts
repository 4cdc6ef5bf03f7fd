import { buildOpenApiDocument } from '@tms/contract/openapi';
import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';

/** Swagger UI serves its own assets, so /docs works on a machine with no internet. */
export function docsRouter(version: string): Router {
  const document = buildOpenApiDocument(version);
  const router = Router();
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
