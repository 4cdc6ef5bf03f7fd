import { readFileSync } from 'node:fs';
import {
  contract,
  ExportMembershipsQuerySchema,
  ListInvitationsQuerySchema,
  ListMembershipsQuerySchema,
  ROSTER_EXPORT_COLUMNS,
  RosterImportQuerySchema,
} from '@tms/contract';
import { Ajv, type Options } from 'ajv';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ZodTypeAny } from 'zod';
import { neutraliseCell } from '../../src/modules/rosters/csv-cells.js';
import { createTenantFixture, type TenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';

/*
 * The published OpenAPI document (contract/openapi.json) read as a validating client, gateway or
 * mock (Stoplight Prism) reads it, with a JSON-schema validator (ajv), against what the server
 * accepts and answers:
 * - a query parameter's value is text: validators read it into the schema's type (ajv's
 *   `coerceTypes`, as Prism does; some also read one value as a list of one, `coerceTypes: 'array'`).
 *   Every value the server accepts must then match the parameter's schema exactly once (a `oneOf`
 *   refuses a value two alternatives match), every value it refuses none;
 * - every `oneOf` / `anyOf` of the document has alternatives that no one value matches twice;
 * - the membership export declares its two media types, each with a schema and examples that validate;
 * - live traffic (a list with includeTotal, a dry-run import, an export in both formats) validates
 *   against the document: the query values, and the bodies of the answers.
 */

type Json = Record<string, unknown>;
type Schema = Json;
type Parameter = { name: string; in: string; schema: Schema; style?: string; explode?: boolean };
type MediaType = { schema: Schema; examples?: Record<string, { summary?: string; value: unknown }> };
type Response = { description: string; headers?: Json; content?: Record<string, MediaType> };
type Operation = {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, Response | { $ref: string }>;
};
type Document = { paths: Record<string, Record<string, Operation>>; components: Json };

const doc = JSON.parse(
  readFileSync(new URL('../../../contract/openapi.json', import.meta.url), 'utf8'),
) as Document;

/** The node a local `$ref` (`#/components/...`) points at. */
function target(ref: string): unknown {
  const found = ref
    .replace(/^#\//, '')
    .split('/')
    .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], doc);
  if (found === undefined) throw new Error(`unresolved ${ref}`);
  return found;
}

/** The node with every local `$ref` replaced by what it points at (the document has no cycles). */
function inlined<T>(node: T): T {
  if (Array.isArray(node)) return node.map(inlined) as T;
  if (!node || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as Json;
  if (typeof $ref === 'string') return inlined({ ...(target($ref) as Json), ...rest }) as T;
  return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inlined(value)])) as T;
}

const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ path, method, op })),
);
function operation(operationId: string) {
  const found = operations.find(({ op }) => op.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  return found;
}
function queryParameter(operationId: string, name: string): Parameter {
  const found = operation(operationId).op.parameters?.find((p) => p.in === 'query' && p.name === name);
  if (!found) throw new Error(`${operationId} has no query parameter ${name}`);
  return inlined(found);
}
const responseOf = (operationId: string, status: number): Response =>
  inlined(operation(operationId).op.responses[String(status)] as Response);

// The formats the document uses; the rest of OpenAPI 3.0's schema keywords are JSON Schema's
// (ajv knows `nullable`), or annotations (`example`), which `strict: false` lets by.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
function validator(options: Options): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, ...options });
  ajv.addFormat('uuid', UUID);
  ajv.addFormat('date-time', (value: string) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)));
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  return ajv;
}

/** How validators read the document: a JSON body as it is; a query's text into the schema's type. */
const READERS = {
  json: validator({ coerceTypes: false }),
  query: validator({ coerceTypes: true }),
  queryWithLists: validator({ coerceTypes: 'array' }),
};
type Reader = keyof typeof READERS;

/**
 * Whether `value` validates, read as `reader` reads it. Coercion rewrites the value in its parent,
 * so it is validated as a property (as Prism validates the query: an object of parameters), on a copy.
 */
function accepts(reader: Reader, schema: Schema, value: unknown): boolean {
  const validate = READERS[reader].compile({ type: 'object', properties: { value: schema } });
  return validate({ value: structuredClone(value) });
}
/** How many of the schema's alternatives (its `oneOf` or `anyOf`; itself without) accept the value. */
function alternativesAccepting(reader: Reader, schema: Schema, value: unknown): number {
  const { oneOf, anyOf, ...rest } = schema;
  const alternatives = (oneOf ?? anyOf) as Schema[] | undefined;
  if (!alternatives) return accepts(reader, schema, value) ? 1 : 0;
  return alternatives.filter((alternative) => accepts(reader, { ...rest, ...alternative }, value)).length;
}

/**
 * A query string's value for a parameter, as OpenAPI's default for the query (style form, explode)
 * reads it: every value of the key for an array, else the value (two values, when the key is
 * repeated, are two, which no scalar schema accepts). The server's parser ('simple': node's
 * querystring) gives the same, but a single value of an array parameter stays a string there.
 */
function queryValue(parameter: Parameter, search: string): unknown {
  const values = new URLSearchParams(search).getAll(parameter.name);
  if (values.length === 0) return undefined;
  if (parameter.schema.type === 'array') return values;
  return values.length === 1 ? values[0] : values;
}
const serverQuery = (search: string): Json => {
  const query: Json = {};
  for (const [key, value] of new URLSearchParams(search)) {
    const seen = query[key];
    query[key] = seen === undefined ? value : [seen, value].flat();
  }
  return query;
};

/** The query parameters whose values the server reads as words or lists: what this file is about. */
const QUERY_CASES: {
  operationId: string;
  name: string;
  schema: ZodTypeAny;
  accepted: string[];
  refused: string[];
}[] = [
  ...(
    [
      ['listMemberships', ListMembershipsQuerySchema],
      ['createRosterImport', RosterImportQuerySchema],
    ] as const
  ).map(([operationId, schema]) => ({
    operationId,
    name: operationId === 'listMemberships' ? 'includeTotal' : 'dryRun',
    schema,
    accepted: ['true', 'false'],
    // Neither 1/0, nor another case, nor other words, nor the key twice: the contract's queryBoolean.
    refused: ['1', '0', 'TRUE', 'False', 'yes', 'on', '', ' true', 'true&@=true'],
  })),
  ...(
    [
      ['listMemberships', ListMembershipsQuerySchema, ['ACTIVE', 'SUSPENDED']],
      ['exportMemberships', ExportMembershipsQuerySchema, ['ACTIVE', 'SUSPENDED']],
      ['listInvitations', ListInvitationsQuerySchema, ['PENDING', 'EXPIRED']],
    ] as const
  ).map(([operationId, schema, [a, b]]) => ({
    operationId,
    name: 'status',
    schema,
    accepted: [a, `${a}&@=${b}`, `${a}&@=${a}`],
    refused: [a.toLowerCase(), '', `${a},${b}`, `${a}&@=NOPE`, 'NOPE'],
  })),
];
/** `value` of the case as a query string (`@` stands for the key, to repeat it). */
const searchOf = (name: string, value: string) => `${name}=${value.replaceAll('@', name)}`;

describe('the query parameters of the document, read as validators read a query string', () => {
  it('finds every boolean query parameter of the document among the cases', () => {
    const booleans = operations.flatMap(({ op }) =>
      (op.parameters ?? [])
        .filter((p) => p.in === 'query' && JSON.stringify(inlined(p.schema)).includes('"boolean"'))
        .map((p) => `${op.operationId} ${p.name}`),
    );
    expect(booleans.sort()).toEqual(['createRosterImport dryRun', 'listMemberships includeTotal']);
  });

  it('declares a query boolean as a boolean: no oneOf, no anyOf', () => {
    for (const { operationId, name } of QUERY_CASES.filter((c) => c.name !== 'status'))
      expect(queryParameter(operationId, name).schema, `${operationId} ${name}`).toMatchObject({
        type: 'boolean',
      });
    expect(queryParameter('createRosterImport', 'dryRun').schema).toEqual({
      type: 'boolean',
      default: false,
    });
    expect(queryParameter('listMemberships', 'includeTotal').schema).toEqual({ type: 'boolean' });
  });

  it('declares a repeatable status as an array, each key one item (style form, explode)', () => {
    for (const { operationId, name } of QUERY_CASES.filter((c) => c.name === 'status')) {
      const parameter = queryParameter(operationId, name);
      expect(parameter, operationId).toMatchObject({ style: 'form', explode: true });
      expect(parameter.schema, operationId).toMatchObject({ type: 'array', minItems: 1 });
      expect(parameter.schema.oneOf ?? parameter.schema.anyOf, operationId).toBeUndefined();
    }
  });

  it('matches every value the server accepts exactly once, and those it refuses not at all', () => {
    let checked = 0;
    for (const { operationId, name, schema, accepted, refused } of QUERY_CASES) {
      const parameter = queryParameter(operationId, name);
      for (const [values, expected] of [
        [accepted, 1],
        [refused, 0],
      ] as const) {
        for (const value of values) {
          const search = searchOf(name, value);
          const where = `${operationId} ?${search}`;
          // The server: the contract's schema, on the query as express's parser gives it.
          expect(schema.safeParse(serverQuery(search)).success, `${where}: the server`).toBe(expected === 1);
          for (const reader of ['query', 'queryWithLists'] as const) {
            const read = queryValue(parameter, search);
            expect(alternativesAccepting(reader, parameter.schema, read), `${where} (${reader})`).toBe(
              expected,
            );
            expect(accepts(reader, parameter.schema, read), `${where} (${reader})`).toBe(expected === 1);
          }
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it("takes a typed client's booleans (true, false) as one match each, and refuses the words as JSON strings", () => {
    for (const { operationId, name } of QUERY_CASES.filter((c) => c.name !== 'status')) {
      const { schema } = queryParameter(operationId, name);
      for (const value of [true, false]) expect(alternativesAccepting('json', schema, value)).toBe(1);
      expect(alternativesAccepting('json', schema, 'true')).toBe(0);
    }
  });

  it('would have caught the old declarations (the check can fail)', () => {
    const oldBoolean = { oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['true', 'false'] }] };
    expect(alternativesAccepting('query', oldBoolean, 'true')).toBe(2);
    expect(alternativesAccepting('query', oldBoolean, true)).toBe(2);
    const statuses = { type: 'string', enum: ['ACTIVE', 'SUSPENDED'] };
    const oldStatus = { oneOf: [statuses, { type: 'array', items: statuses, minItems: 1 }] };
    expect(alternativesAccepting('queryWithLists', oldStatus, 'ACTIVE')).toBe(2);
  });

  it('has no oneOf or anyOf in any parameter: a value in a URL or a header is text, read once', () => {
    for (const { op } of operations)
      for (const parameter of op.parameters ?? []) {
        const text = JSON.stringify(inlined(parameter.schema));
        expect(text, `${op.operationId} ${parameter.name}`).not.toMatch(/"(oneOf|anyOf)"/);
      }
  });
});

/** Every `oneOf` and `anyOf` of the document, by JSON pointer. */
function alternativesIn(node: unknown, pointer = '#'): { pointer: string; schema: Schema }[] {
  if (!node || typeof node !== 'object') return [];
  const here = 'oneOf' in node || 'anyOf' in node ? [{ pointer, schema: node as Schema }] : [];
  return [
    ...here,
    ...Object.entries(node).flatMap(([key, value]) =>
      alternativesIn(value, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`),
    ),
  ];
}

const schemaAt = (media: MediaType | undefined, property: string) =>
  ((media?.schema.properties as Json | undefined)?.[property] ?? {}) as Schema;

describe('every oneOf and anyOf of the document', () => {
  const owner = { userId: '0194849a-770e-7197-8742-b5eaa607bcfb' };
  const invitee = { email: 'grace@greenvalley.example', displayName: 'Grace Hopper' };
  const events = target('#/components/schemas/CreateWebhookBody/properties/events/items') as {
    oneOf: { enum: string[] }[];
  };
  const eventNames = events.oneOf.flatMap((alternative) => alternative.enum);
  // What each accepts (one alternative each) and refuses (none); a new oneOf needs its line here.
  const CASES: Record<string, { accepted: unknown[]; refused: unknown[] }> = {
    '#/components/schemas/CreateTenantBody/properties/owner': {
      accepted: [owner, { email: invitee.email }, invitee],
      refused: [{ ...owner, ...invitee }, {}, { displayName: 'Ada' }],
    },
    '#/components/schemas/CreateMembershipBody': {
      accepted: [
        { role: 'TEACHER', ...owner },
        { role: 'STUDENT', email: invitee.email },
        { role: 'ADMIN', ...invitee },
      ],
      refused: [{ role: 'ADMIN', ...owner, email: invitee.email }, { role: 'ADMIN' }, owner],
    },
    '#/components/schemas/CreateWebhookBody/properties/events/items': {
      accepted: eventNames,
      refused: ['tenant.*', '', 'TENANT.CREATED'],
    },
    '#/components/schemas/UpdateWebhookBody/properties/events/items': {
      accepted: eventNames,
      refused: ['tenant.*', '', 'TENANT.CREATED'],
    },
  };

  it('are the ones this test knows, none of them in a parameter', () => {
    expect(alternativesIn(doc).map(({ pointer }) => pointer)).toEqual(Object.keys(CASES));
    expect(eventNames).toContain('*');
  });

  it('have alternatives no value matches twice, read as JSON or coerced', () => {
    for (const { pointer, schema } of alternativesIn(doc)) {
      const full = inlined(schema);
      const { accepted, refused } = CASES[pointer] ?? { accepted: [], refused: [] };
      for (const reader of ['json', 'query'] as const) {
        for (const value of accepted)
          expect(alternativesAccepting(reader, full, value), `${pointer} ${JSON.stringify(value)}`).toBe(1);
        for (const value of refused)
          expect(alternativesAccepting(reader, full, value), `${pointer} ${JSON.stringify(value)}`).toBe(0);
      }
    }
  });

  it('matches each request example of an operation whose body is a oneOf exactly once', () => {
    for (const operationId of ['createTenant', 'createMembership']) {
      const { op } = operation(operationId);
      const media = inlined(op.requestBody?.content['application/json']);
      const examples = Object.values(media?.examples ?? {});
      expect(examples.length, operationId).toBeGreaterThan(0);
      for (const { value } of examples) {
        expect(accepts('json', media?.schema ?? {}, value), operationId).toBe(true);
        const body = value as Json;
        if (operationId === 'createTenant')
          expect(alternativesAccepting('json', schemaAt(media, 'owner'), body.owner)).toBe(1);
        else expect(alternativesAccepting('json', media?.schema ?? {}, body)).toBe(1);
      }
    }
  });
});

const EXPORT_MEDIA_TYPES = ['text/csv', 'application/x-ndjson'];

/** The CSV the service writes for records (membership-export.service.ts): BOM, header, a line each. */
const csvOf = (records: Record<string, string | null>[]) =>
  `\uFEFF${stringify([[...ROSTER_EXPORT_COLUMNS]])}${stringify(
    records.map((record) => ROSTER_EXPORT_COLUMNS.map((column) => neutraliseCell(record[column] ?? ''))),
  )}`;
const ndjsonRecords = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, string | null>);

/** An NDJSON line's object, as the document's description of it says. */
function expectExportRecord(record: Record<string, string | null>, where: string) {
  expect(Object.keys(record), where).toEqual([...ROSTER_EXPORT_COLUMNS]);
  const nullableText = { type: 'string', nullable: true };
  const shape = {
    type: 'object',
    properties: {
      email: nullableText,
      role: { type: 'string', enum: ['OWNER', 'ADMIN', 'TEACHER', 'STUDENT'] },
      givenName: nullableText,
      familyName: nullableText,
      startsAt: { ...nullableText, format: 'date-time' },
      endsAt: { ...nullableText, format: 'date-time' },
      userId: { type: 'string', format: 'uuid' },
      tenantMembershipId: { type: 'string', format: 'uuid' },
      status: { type: 'string', enum: ['ACTIVE', 'SUSPENDED', 'SCHEDULED', 'ENDED'] },
    },
    required: [...ROSTER_EXPORT_COLUMNS],
    additionalProperties: false,
  };
  expect(accepts('json', shape, record), `${where}: ${JSON.stringify(record)}`).toBe(true);
}

describe('the membership export in the document', () => {
  const ok = () => responseOf('exportMemberships', 200);

  it('declares the 200 as CSV and NDJSON, each a string with a description and examples that validate', () => {
    expect(Object.keys(ok().content ?? {})).toEqual(EXPORT_MEDIA_TYPES);
    for (const type of EXPORT_MEDIA_TYPES) {
      const media = ok().content?.[type];
      expect(media?.schema, type).toMatchObject({ type: 'string', description: expect.any(String) });
      const examples = Object.values(media?.examples ?? {});
      expect(examples.length, type).toBeGreaterThan(0);
      for (const { value } of examples) expect(accepts('json', media?.schema ?? {}, value), type).toBe(true);
    }
    expect(ok().headers).toHaveProperty('Content-Disposition');
  });

  it("declares the contract's own content type among them", () => {
    const declared = (contract.membershipExport.export.responses[200] as { contentType: string }).contentType;
    expect(EXPORT_MEDIA_TYPES).toContain(declared);
  });

  it('describes the NDJSON objects field by field, and the CSV header, quoting and formula prefix', () => {
    const ndjson = String(ok().content?.['application/x-ndjson']?.schema.description);
    expect(ndjson).toMatch(/one JSON object per line/i);
    for (const column of ROSTER_EXPORT_COLUMNS) expect(ndjson).toContain(`\`${column}\``);
    const csv = String(ok().content?.['text/csv']?.schema.description);
    expect(csv).toContain(ROSTER_EXPORT_COLUMNS.join(','));
    expect(csv).toMatch(/byte order mark/);
    expect(csv).toMatch(/quoted/);
    expect(csv).toContain("`'`");
  });

  it('gives examples of the same members: the CSV is what the service writes for the NDJSON records', () => {
    const [csv] = Object.values(ok().content?.['text/csv']?.examples ?? {});
    const [ndjson] = Object.values(ok().content?.['application/x-ndjson']?.examples ?? {});
    const records = ndjsonRecords(String(ndjson?.value));
    expect(records.length).toBeGreaterThan(3);
    for (const [i, record] of records.entries()) expectExportRecord(record, `NDJSON example line ${i + 1}`);
    expect(String(ndjson?.value).endsWith('\n')).toBe(true);
    expect(csv?.value).toBe(csvOf(records));
    // What the examples are there to show: a quoted cell, a neutralised formula, a member without an email.
    expect(csv?.value).toContain('"O\'Brien, Jr."');
    expect(csv?.value).toContain(`"'=HYPERLINK(`);
    expect(records.some((record) => record.email === null)).toBe(true);
  });

  it('declares the errors before the first byte as the enveloped JSON errors', () => {
    const statuses = Object.keys(operation('exportMemberships').op.responses).filter((s) => Number(s) >= 400);
    expect(statuses).toEqual(expect.arrayContaining(['400', '401', '403', '404']));
    for (const status of statuses) {
      const { content } = responseOf('exportMemberships', Number(status));
      expect(Object.keys(content ?? {}), status).toEqual(['application/json']);
      expect(content?.['application/json']?.schema, status).toEqual(
        inlined({ $ref: '#/components/schemas/ErrorEnvelope' }),
      );
    }
  });
});

describe('live traffic against the document', () => {
  let h: TestServer;
  let t: TenantFixture;
  beforeAll(async () => {
    h = await startTestServer();
    t = await createTenantFixture(h, undefined, `green-valley-${Date.now().toString(36)}`);
  });
  afterAll(async () => {
    await h?.close();
  });

  const ROSTER = [
    'email,role,givenName,familyName,startsAt,endsAt',
    'maria.keller@greenvalley.example,TEACHER,Maria,Keller,2025-08-25,2099-07-31',
    'jerome.lefevre@greenvalley.example,student,Jérôme,Lefèvre,2025-09-01,2030-07-10',
    'liam.obrien@greenvalley.example,student,Liam,"O\'Brien, Jr.",2025-09-01,',
    'lee.wong@greenvalley.example,student,"=HYPERLINK(""https://evil.example"",""Lee"")",,,',
    'noor.haddad@greenvalley.example,teacher,Noor,Haddad,2099-01-05,2099-07-31',
    '',
  ].join('\n');

  type Call = { operationId: string; method?: string; path: string; search?: string; body?: string };
  type Answer = { status: number; type: string; text: string; headers: Headers };

  async function call({ operationId, method = 'GET', path, search = '', body }: Call): Promise<Answer> {
    // The query, as the document reads it: every parameter it declares validates, exactly once.
    const { op } = operation(operationId);
    for (const parameter of (op.parameters ?? []).filter((p) => p.in === 'query').map(inlined)) {
      const value = queryValue(parameter, search);
      if (value === undefined) continue;
      expect(alternativesAccepting('query', parameter.schema, value), `${operationId} ?${search}`).toBe(1);
    }
    const res = await fetch(`${h.baseUrl}${path}${search ? `?${search}` : ''}`, {
      method,
      headers: {
        authorization: `Bearer ${t.owner.token}`,
        ...(body === undefined ? {} : { 'content-type': 'text/csv' }),
      },
      body,
    });
    // Decoded by hand: res.text() would drop the CSV's byte order mark.
    const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
    return { status: res.status, type: res.headers.get('content-type') ?? '', text, headers: res.headers };
  }

  /** The answer against the response the document declares for its status and media type. */
  function expectDeclared(operationId: string, answer: Answer): unknown {
    const where = `${operationId} ${answer.status}`;
    const response = responseOf(operationId, answer.status);
    expect(response, where).toBeDefined();
    const mediaType = answer.type.split(';')[0]?.trim() ?? '';
    const media = response.content?.[mediaType];
    expect(media, `${where}: ${mediaType} is not declared`).toBeDefined();
    const body = mediaType === 'application/json' ? JSON.parse(answer.text) : answer.text;
    const validate = READERS.json.compile(media?.schema ?? {});
    expect(validate(body) ? [] : validate.errors, `${where}: the body against the document`).toEqual([]);
    // Sent whenever declared, but for RateLimit-* (this server has no limiter) and Idempotent-Replayed (on a replay).
    const always = (name: string) => !name.startsWith('RateLimit') && name !== 'Idempotent-Replayed';
    for (const header of Object.keys(response.headers ?? {}).filter(always))
      expect(answer.headers.has(header), `${where}: ${header}`).toBe(true);
    return body;
  }

  const imports = () => `/tenants/${t.tenantId}/roster-imports`;
  const members = () => `/tenants/${t.tenantId}/memberships`;
  const exported = () => `/tenants/${t.tenantId}/memberships/export`;

  it('a dry-run import, then the import: their queries and answers as the document says', async () => {
    const dry = await call({
      operationId: 'createRosterImport',
      method: 'POST',
      path: imports(),
      search: 'mode=add&dryRun=true',
      body: ROSTER,
    });
    expect(dry.status).toBe(200);
    expect(expectDeclared('createRosterImport', dry)).toMatchObject({ data: { dryRun: true } });
    const applied = await call({
      operationId: 'createRosterImport',
      method: 'POST',
      path: imports(),
      search: 'dryRun=false',
      body: ROSTER,
    });
    expect(applied.status).toBe(200);
    expect(expectDeclared('createRosterImport', applied)).toMatchObject({
      data: { dryRun: false, summary: { create: 5 } },
    });
  });

  it('the list with includeTotal and statuses: its query and answer as the document says', async () => {
    for (const search of [
      'includeTotal=true',
      'includeTotal=false&status=ACTIVE',
      'includeTotal=true&status=ACTIVE&status=SCHEDULED&sort=email',
    ]) {
      const answer = await call({ operationId: 'listMemberships', path: members(), search });
      expect(answer.status, search).toBe(200);
      const body = expectDeclared('listMemberships', answer) as { meta: { total?: number } };
      expect(body.meta.total === undefined, search).toBe(search.startsWith('includeTotal=false'));
    }
  });

  it('the export in both formats: declared media types, bodies of the documented form', async () => {
    const csv = await call({ operationId: 'exportMemberships', path: exported(), search: 'format=csv' });
    const ndjson = await call({
      operationId: 'exportMemberships',
      path: exported(),
      search: 'format=ndjson',
    });
    for (const answer of [csv, ndjson]) {
      expect(answer.status).toBe(200);
      expectDeclared('exportMemberships', answer);
    }
    expect(csv.type.split(';')[0]).toBe('text/csv');
    expect(ndjson.type).toBe('application/x-ndjson');
    const records = ndjsonRecords(ndjson.text);
    expect(records).toHaveLength(6);
    for (const [i, record] of records.entries()) expectExportRecord(record, `line ${i + 1}`);
    // The CSV: the same members, written by the rules the document describes (and its example follows).
    expect(csv.text).toBe(csvOf(records));
    const rows = parse(csv.text, { bom: true, columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0] ?? {})).toEqual([...ROSTER_EXPORT_COLUMNS]);
    expect(rows.map((row) => row.givenName)).toContain(`'=HYPERLINK("https://evil.example","Lee")`);
    expect(rows.map((row) => row.familyName)).toContain("O'Brien, Jr.");
    expect(csv.headers.get('content-disposition')).toMatch(
      /^attachment; filename="green-valley-[a-z0-9]+-memberships\.csv"$/,
    );

    const filtered = await call({
      operationId: 'exportMemberships',
      path: exported(),
      search: 'format=ndjson&status=ACTIVE&status=SCHEDULED&role=TEACHER',
    });
    expectDeclared('exportMemberships', filtered);
    expect(ndjsonRecords(filtered.text).map((record) => record.status)).toEqual(['ACTIVE', 'SCHEDULED']);
  });

  it('the errors before the first byte: enveloped JSON, as declared', async () => {
    for (const search of ['format=xml', 'status=active', 'format=csv&format=ndjson']) {
      const answer = await fetch(`${h.baseUrl}${exported()}?${search}`, {
        headers: { authorization: `Bearer ${t.owner.token}` },
      });
      const text = await answer.text();
      const body = expectDeclared('exportMemberships', {
        status: answer.status,
        type: answer.headers.get('content-type') ?? '',
        text,
        headers: answer.headers,
      }) as { error: { code: string } };
      expect([answer.status, body.error.code], search).toEqual([400, 'VALIDATION_FAILED']);
    }
    const anonymous = await fetch(`${h.baseUrl}${exported()}`);
    const body = expectDeclared('exportMemberships', {
      status: anonymous.status,
      type: anonymous.headers.get('content-type') ?? '',
      text: await anonymous.text(),
      headers: anonymous.headers,
    }) as { error: { code: string } };
    expect([anonymous.status, body.error.code]).toEqual([401, 'UNAUTHENTICATED']);
  });

  it('answers each boolean and status value as the document judges it: 200 when it matches, 400 when not', async () => {
    const urls: Record<string, { path: string; method: string }> = {
      listMemberships: { path: members(), method: 'GET' },
      exportMemberships: { path: exported(), method: 'GET' },
      listInvitations: { path: `/tenants/${t.tenantId}/invitations`, method: 'GET' },
      // A file of one unchanged member: applying it (dryRun=false) changes nothing.
      createRosterImport: { path: imports(), method: 'POST' },
    };
    for (const { operationId, name, accepted, refused } of QUERY_CASES) {
      const parameter = queryParameter(operationId, name);
      for (const value of [...accepted, ...refused]) {
        const search = searchOf(name, value);
        const matches = accepts('query', parameter.schema, queryValue(parameter, search));
        const { path, method } = urls[operationId] ?? { path: '', method: '' };
        const res = await fetch(`${h.baseUrl}${path}?${search}`, {
          method,
          headers: {
            authorization: `Bearer ${t.owner.token}`,
            ...(method === 'POST' ? { 'content-type': 'text/csv' } : {}),
          },
          body: method === 'POST' ? 'email,role\nmaria.keller@greenvalley.example,TEACHER\n' : undefined,
        });
        const text = await res.text();
        expect(res.status, `${operationId} ?${search}: ${text.slice(0, 200)}`).toBe(matches ? 200 : 400);
        if (!matches) expect(text, `${operationId} ?${search}`).toContain(`query.${name}`);
      }
    }
  });
});
