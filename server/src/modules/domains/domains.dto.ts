import type { Domain } from '@tms/contract';
import type { DomainView } from './domains.repository.js';

export const toDomainDto = (view: DomainView): Domain => ({
  domainId: view.id,
  tenantId: view.tenantId,
  domain: view.domain,
  mode: view.mode,
  role: view.role === 'TEACHER' ? 'TEACHER' : 'STUDENT',
  includeSubdomains: view.includeSubdomains,
  verifiedAt: view.verifiedAt?.toISOString() ?? null,
  createdAt: view.createdAt.toISOString(),
});
