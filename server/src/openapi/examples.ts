/** Request examples shown in Swagger UI and the OpenAPI document, by operationId. */
export const REQUEST_EXAMPLES: Record<string, Record<string, { summary: string; value: unknown }>> = {
  createTenant: {
    ownerByEmail: {
      summary: 'Owner invited by email',
      value: {
        name: 'Green Valley School',
        slug: 'green-valley',
        owner: { email: 'head@greenvalley.example', displayName: 'Ada Head' },
      },
    },
    ownerById: {
      summary: 'Owner who already has an account',
      value: {
        name: 'Green Valley School',
        slug: 'green-valley',
        owner: { userId: '0192f1c4-8d1e-7b3a-9c55-3e2f1a0b9c77' },
      },
    },
  },
  updateTenant: {
    rename: { summary: 'Rename', value: { name: 'Green Valley Academy' } },
  },
  createMembership: {
    byEmail: {
      summary: 'Invite a teacher by email',
      value: { role: 'TEACHER', email: 'grace@greenvalley.example', displayName: 'Grace' },
    },
    byUserId: {
      summary: 'Add an existing user',
      value: { role: 'STUDENT', userId: '0192f1c4-8d1e-7b3a-9c55-3e2f1a0b9c77' },
    },
  },
  updateMembership: {
    promote: { summary: 'Make an administrator', value: { role: 'ADMIN' } },
  },
};
