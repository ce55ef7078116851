import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

/** GraphQL parameters that are not JSON: a 400 with the errors array, never a masked 500. */
describe('GraphQL over HTTP: parameters that are not JSON', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.stop());

  const send = async (init: { method: string; path?: string; contentType?: string; body?: string }) => {
    const res = await fetch(`${t.url}/graphql${init.path ?? ''}`, {
      method: init.method,
      headers: { accept: 'application/json', ...(init.contentType && { 'content-type': init.contentType }) },
      ...(init.body !== undefined && { body: init.body }),
    });
    return { status: res.status, body: (await res.json()) as { errors?: Array<{ message: string; extensions?: { code?: string } }> } };
  };

  it('GET with variables that are not JSON', async () => {
    const res = await send({ method: 'GET', path: `?query=${encodeURIComponent('{ __typename }')}&variables=%7B` });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  });

  it('a form POST whose content-type merely mentions json, with variables that are not JSON', async () => {
    const body = `query=${encodeURIComponent('{ __typename }')}&variables=%7B`;
    for (const contentType of ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; x=json']) {
      const res = await send({ method: 'POST', contentType, body });
      expect(res.status, contentType).toBe(400);
      expect(res.body.errors?.[0]?.extensions?.code, contentType).toBe('BAD_REQUEST');
    }
  });

  it('a JSON POST whose body is not JSON: Yoga\'s own 400', async () => {
    const res = await send({ method: 'POST', contentType: 'application/json', body: '{"query": ' });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.message).toMatch(/JSON/i);
  });
});
