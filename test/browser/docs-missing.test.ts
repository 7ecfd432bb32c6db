import express from 'express';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { createDocsPage } from '../../src/http/docs-page.js';
import { createLogger } from '../../src/logger.js';

describe('the /docs page without its renderer installed', () => {
  it('says so and points at /openapi.json; the renderer paths are not found', async () => {
    const docs = createDocsPage(createLogger('silent'), () => undefined);
    const app = express();
    app.get('/docs', docs.headers, docs.page);
    app.use('/docs', docs.assets);
    const http = supertest(app);
    const page = await http.get('/docs').expect(200);
    expect(page.text).toContain('is not installed: run <code>npm install</code>');
    expect(page.text).toContain('<a href="/openapi.json">/openapi.json</a>');
    expect(page.text).not.toContain('<script');
    await http.get('/docs/scalar.js').expect(404);
    await http.get('/docs/init.js').expect(404);
  });
});
