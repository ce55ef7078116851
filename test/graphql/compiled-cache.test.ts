import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { startOrdersApp } from '../orders/support.js';


const documentNumber = (n: number) => `query Q${n} { a${n}: __typename }`;

/** Who may buy a compilation, and how many the cache keeps (schema/compiled-queries.ts). */
describe('compiled-query cache: only authenticated, successful, recent documents', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  beforeAll(async () => {
    t = await startOrdersApp();
    shop = await t.createMerchant({ name: 'JIT Shop' });
  });
  afterAll(() => t.stop());

  /** graphql-jit compilations so far, as /metrics counts them. */
  async function compilations(): Promise<number> {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    const line = /^graphql_query_compilations_total (\d+)$/m.exec(text);
    if (!line) throw new Error('graphql_query_compilations_total is not in /metrics');
    return Number(line[1]);
  }

  it('anonymous documents are never compiled, however often they come', async () => {
    const before = await compilations();
    for (let i = 0; i < 5; i++) expect((await gql(t.url, documentNumber(1))).status).toBe(200);
    expect(await compilations()).toBe(before);
  });

  it('an authenticated document is compiled on its second successful run, once', async () => {
    const before = await compilations();
    for (let i = 0; i < 4; i++) expect((await gql(t.url, documentNumber(2), { key: shop.testKey })).body.data).toEqual({ a2: 'Query' });
    expect(await compilations()).toBe(before + 1);
  });

  it('a document whose runs fail is never compiled', async () => {
    const before = await compilations();
    for (let i = 0; i < 4; i++) expect((await gql(t.url, '{ adminMerchants { id } }', { key: shop.testKey })).body.errors).toBeDefined();
    expect(await compilations()).toBe(before);
  });

  it('the cache is bounded: past 500 documents the oldest is forgotten and compiled again when it returns', async () => {
    const key = shop.testKey;
    const run = (n: number) => gql(t.url, documentNumber(n), { key });
    await run(1000);
    await run(1000);
    const before = await compilations();
    await run(1000);
    expect(await compilations()).toBe(before);
    for (let n = 1001; n <= 1500; n++) await run(n);
    await run(1000);
    await run(1000);
    expect(await compilations()).toBe(before + 1);
  });
});
