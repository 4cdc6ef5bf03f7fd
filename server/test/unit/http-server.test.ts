import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http/http-server.js';

describe('the HTTP server', () => {
  it("hands express requests and responses born with the app's prototypes, so express never swaps them", async () => {
    const app = express();
    app.get('/probe', (_req, res) => {
      res.json({ ok: true });
    });
    const server = createHttpServer(app).listen(0, '127.0.0.1');
    // Before express sees them: by then they must already be express's.
    const seen: boolean[] = [];
    server.prependListener('request', (req, res) => {
      seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response);
    });
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/probe`);
      expect(await res.json()).toEqual({ ok: true });
      expect(seen).toEqual([true, true]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('keeps their properties fast: V8 never turns them into dictionaries (its slow paths)', async () => {
    setFlagsFromString('--allow-natives-syntax');
    const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
    const app = express();
    const seen: boolean[] = [];
    app.get('/probe', (req, res) => {
      res.setHeader('X-Probe', '1');
      res.status(200).json({ ok: true });
      seen.push(hasFastProperties(req), hasFastProperties(res));
    });
    const server = createHttpServer(app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/probe`);
        expect(await res.json()).toEqual({ ok: true });
      }
      expect(seen).toEqual([true, true, true, true, true, true]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
