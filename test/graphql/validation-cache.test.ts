import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, type TestApp } from '../helpers/app.js';
import { startOrdersApp } from '../orders/support.js';

/** Validation results are cached by document (schema/parse-cache.ts): a cached answer is the answer validation gives. */
describe('validation cache: the second sight of a document is validated as the first', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startOrdersApp();
    key = (await t.createMerchant({ name: 'Validation Shop' })).testKey;
  });
  afterAll(() => t.stop());

  it('an invalid document is refused the same way every time', async () => {
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await gql(t.url, '{ quote { nope } }', { key }));
    // Accept: application/json, so Yoga answers a validation failure with 200 (GraphQL over HTTP).
    expect(answers[0]!.status).toBe(200);
    expect((answers[0]!.body as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    for (const answer of answers) expect({ status: answer.status, body: answer.body }).toEqual({ status: answers[0]!.status, body: answers[0]!.body });
  });

  it("graphql-armor's rules still refuse a document every time it comes (too many aliases)", async () => {
    const aliases = `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: viewer { mode }`).join(' ')} }`;
    for (let i = 0; i < 3; i++) {
      const res = await gql(t.url, aliases, { key });
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body)).toMatch(/aliases/i);
    }
  });

  it('a valid document stays valid, and a document differing only in whitespace is validated on its own', async () => {
    for (const query of ['{ __typename }', '{ __typename }', '{  __typename }', '{ __typename }']) {
      const res = await gql(t.url, query, { key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { __typename: 'Query' } });
    }
  });
});
