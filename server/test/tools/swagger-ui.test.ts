import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSuperAdmin } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// The flags that work on these machines: no sandbox as root, no GPU, no calls home.
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI)
  throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`);

let h: TestServer;
let browser: Browser;
beforeAll(async () => {
  if (!haveChromium) return;
  h = await startTestServer();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe.skipIf(!haveChromium)('Swagger UI in a real browser', () => {
  it('authorises with a bearer token and runs "Try it out" on GET /me', async () => {
    const admin = await createSuperAdmin(h);
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') blocked.push(message.text());
    });

    await page.goto(`${h.baseUrl}/docs/`);
    await page.locator('.swagger-ui .info .title').waitFor();
    expect(await page.locator('.swagger-ui .info .title').innerText()).toContain('Tenant Membership Service');

    await page.locator('.auth-wrapper button.authorize').click();
    // Two schemes: the API's bearer token, and the SCIM token of the directory's routes.
    const bearer = page.locator('.modal-ux .auth-container', { hasText: 'bearerAuth' });
    await bearer.locator('input').first().fill(admin.token);
    await bearer.locator('button.authorize').click();
    await page.locator('.modal-ux button.btn-done').first().click();

    const operation = page.locator('#operations-Me-getMe');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    expect((await status.innerText()).trim()).toBe('200');
    expect(await operation.locator('.live-responses-table .microlight').first().innerText()).toContain(
      admin.userId,
    );

    mkdirSync(ARTIFACTS, { recursive: true });
    await operation.locator('.live-responses-table').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}swagger-ui-get-me.png`, fullPage: false });
    expect(blocked.filter((text) => /Content Security Policy|Refused to/i.test(text))).toEqual([]);
    await page.close();
  });

  it('links to the raw document, /openapi.json, under the title', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${h.baseUrl}/docs/`);
    const link = page.locator('.swagger-ui .info a', { hasText: '/openapi.json' });
    await link.waitFor();
    expect(await link.isVisible()).toBe(true);
    const href = await link.evaluate((anchor) => (anchor as unknown as { href: string }).href);
    expect(href).toBe(`${h.baseUrl}/openapi.json`);
    // The link leads to the document itself.
    const answer = await page.request.get(href);
    expect(answer.status()).toBe(200);
    expect(((await answer.json()) as { openapi: string }).openapi).toMatch(/^3\./);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}swagger-ui-title.png`, fullPage: false });
    await page.close();
  });

  it('shows realistic success examples and the response headers', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${h.baseUrl}/docs/`);
    const operation = page.locator('#operations-Memberships-getMembership');
    await operation.locator('.opblock-summary').click();
    const ok = operation.locator('tr.response[data-code="200"]');
    await ok.waitFor();
    const example = await ok.locator('.microlight').first().innerText();
    expect(example).toContain('"roleLevel": 30');
    expect(example).not.toContain('"roleLevel": 0');
    const headers = await ok.locator('.headers-wrapper').innerText();
    for (const name of ['x-request-id', 'ETag', 'RateLimit-Remaining']) expect(headers).toContain(name);
    await page.close();
  });
});
