import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, createTenantFixture, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { scimTokenOf } from '../support/scim.js';

/*
 * Okta's SCIM 2.0 SPEC test (a Runscope export, test/third-party/okta/SOURCE.md), replayed step by
 * step against a live server: each request as the file sends it (its headers, its body with the
 * variables filled in), each assertion as Runscope reads it, the variables it extracts passed on.
 * The variables Runscope's initial script sets are set here as Okta's guide sets them.
 */

type Assertion = { source: string; property?: string; comparison: string; value?: string | null };
type Step = {
  step_type: string;
  method?: string;
  url?: string;
  headers?: Record<string, string[]>;
  body?: string;
  assertions?: Assertion[];
  variables?: { name: string; property: string; source: string }[];
  note?: string;
};

const spec = JSON.parse(
  readFileSync(new URL('../third-party/okta/Okta-SCIM-20-SPEC-Test.json', import.meta.url), 'utf8'),
) as { steps: Step[] };

let h: TestServer;
const variables: Record<string, string> = {};
beforeAll(async () => {
  h = await startTestServer();
  // Okta's test reads the first user's name parts: the tenant's first member has a full name.
  const owner = await createActor(h, { name: 'Grace Hopper' });
  const tenant = await createTenantFixture(h, owner);
  const random = unique('r').slice(2);
  Object.assign(variables, {
    SCIMBaseURL: `${h.baseUrl}/tenants/${tenant.tenantId}/scim/v2`,
    auth: `Bearer ${await scimTokenOf(h, owner, tenant.tenantId)}`,
    InvalidUserEmail: `invalid-${random}@atko.com`,
    UserIdThatDoesNotExist: '010101010101010101010101010101',
    randomEmail: `Runscope${random}Email@atko.com`,
    randomUsername: `Runscope${random}Username@atko.com`,
    randomUsernameCaps: `RUNSCOPE${random.toUpperCase()}USERNAME@ATKO.COM`,
    randomGivenName: `Given${random}`,
    randomFamilyName: `Family${random}`,
  });
});
afterAll(() => h?.close());

const fill = (text: string) =>
  text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = variables[name];
    if (value === undefined) throw new Error(`the SPEC test uses {{${name}}}, which nothing set`);
    return value;
  });

/** A property as Runscope names it: `Resources[0].name.familyName`. */
function propertyOf(json: unknown, path: string): unknown {
  let value = json;
  for (const part of path.split(/\.|\[(\d+)\]/).filter((p) => p !== undefined && p !== '')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function check(assertion: Assertion, actual: unknown): string | undefined {
  const expected =
    assertion.value === null || assertion.value === undefined ? undefined : fill(assertion.value);
  const shown = JSON.stringify(actual);
  switch (assertion.comparison) {
    case 'equal_number':
    case 'equal':
      return String(actual) === expected ? undefined : `${shown} is not ${expected}`;
    case 'not_empty':
      return actual !== undefined && actual !== null && actual !== '' ? undefined : `${shown} is empty`;
    case 'is_a_number':
      return typeof actual === 'number' ? undefined : `${shown} is not a number`;
    case 'has_value':
    case 'contains':
      return (Array.isArray(actual) ? actual.map(String) : String(actual)).includes(expected ?? '')
        ? undefined
        : `${shown} does not hold ${expected}`;
    case 'is_less_than':
      return Number(actual) < Number(expected) ? undefined : `${shown} is not less than ${expected}`;
    default:
      return `the runner does not know the comparison ${assertion.comparison}`;
  }
}

const requests = spec.steps.filter((step) => step.step_type === 'request');

describe("Okta's SCIM 2.0 SPEC test, replayed", () => {
  it('has its steps', () => {
    expect(requests.length).toBeGreaterThanOrEqual(12);
  });

  for (const [index, step] of requests.entries()) {
    it(`step ${index + 1}: ${step.method} ${step.url}`, async () => {
      const headers = Object.fromEntries(
        Object.entries(step.headers ?? {}).map(([name, values]) => [name, fill(values.join(', '))]),
      );
      const started = Date.now();
      const response = await fetch(fill(step.url ?? ''), {
        method: step.method,
        headers,
        ...(step.body ? { body: fill(step.body) } : {}),
      });
      const elapsed = Date.now() - started;
      const text = await response.text();
      const json = text ? (JSON.parse(text) as unknown) : undefined;
      const failures = (step.assertions ?? [])
        .map((assertion) => {
          const actual =
            assertion.source === 'response_status'
              ? response.status
              : assertion.source === 'response_time'
                ? elapsed
                : propertyOf(json, assertion.property ?? '');
          const problem = check(assertion, actual);
          return (
            problem && `${assertion.source} ${assertion.property ?? ''} ${assertion.comparison}: ${problem}`
          );
        })
        .filter(Boolean);
      expect(failures, text).toEqual([]);
      for (const variable of step.variables ?? []) {
        variables[variable.name] = String(propertyOf(json, variable.property));
      }
    });
  }
});
