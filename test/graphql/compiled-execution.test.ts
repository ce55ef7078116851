import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';

/**
 * A document is interpreted by graphql-js the first time and compiled (graphql-jit) from its
 * second execution on: both must answer alike, errors included.
 */
describe('GraphQL compiled execution (graphql-jit) answers like the interpreter', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  beforeAll(async () => {
    t = await startTestApp();
    m = await t.createMerchant({ name: 'Jit Merchant' });
  });
  afterAll(() => t.stop());

  const twice = async (query: string, variables: Record<string, unknown>) => {
    const first = await gql(t.url, query, { key: m.testKey, variables });
    const second = await gql(t.url, query, { key: m.testKey, variables });
    const third = await gql(t.url, query, { key: m.testKey, variables });
    return { first, second, third };
  };
  const sameAnswers = ({ first, second, third }: Awaited<ReturnType<typeof twice>>) => {
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
    expect(third.body).toEqual(first.body);
  };

  it('a query with nested input variables, fragments on a result union and lists', async () => {
    const QUOTE = `query Q($input: QuoteInput!) { quote(input: $input) { __typename
      ... on QueryQuoteSuccess { data { isTest price currency vehicleType rates { id cost recommended } } }
      ... on AppError { code message fields { field message } } } }`;
    const answers = await twice(QUOTE, { input: { destination: { address: 'Av. Apoquindo 3000, Las Condes' }, totalWeightKg: 3 } });
    sameAnswers(answers);
    expect(answers.first.body.data.quote).toMatchObject({ __typename: 'QueryQuoteSuccess', data: { isTest: true, currency: 'CLP' } });
    expect(answers.first.body.data.quote.data.rates).toHaveLength(2);
  });

  it('a typed error result (AppError with its fields)', async () => {
    const QUOTE = `query E($input: QuoteInput!) { quote(input: $input) { __typename ... on AppError { code fields { field message } } } }`;
    const answers = await twice(QUOTE, { input: { destination: { address: 'Calle Inventada 123, Narnia' } } });
    sameAnswers(answers);
    expect(answers.first.body.data.quote).toMatchObject({ __typename: 'AppError', code: 'GEOCODING_FAILED' });
  });

  it('a variable of the wrong type: the same 4xx-shaped GraphQL error, no data', async () => {
    const QUOTE = `query V($input: QuoteInput!) { quote(input: $input) { __typename } }`;
    const answers = await twice(QUOTE, { input: { destination: 42, totalWeightKg: 'heavy' } });
    sameAnswers(answers);
    expect(answers.first.body.data).toBeUndefined();
    expect(answers.first.body.errors[0].message).toMatch(/Variable "\$input"/);
  });

  it('a resolver that needs a merchant, asked without a key: the same refusal', async () => {
    const VIEWER = '{ viewer { mode merchant { id } } }';
    const first = await gql(t.url, VIEWER);
    const second = await gql(t.url, VIEWER);
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
    expect(JSON.stringify(first.body)).not.toContain('Jit Merchant');
  });
});

describe('GraphQL compiled execution: one document, several operations', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  beforeAll(async () => {
    t = await startTestApp();
    m = await t.createMerchant({ name: 'Two Ops' });
  });
  afterAll(() => t.stop());

  it('runs the operation asked for each time, not the one compiled first', async () => {
    const DOC = `query Mode { viewer { mode } } query Name { viewer { merchant { name } } }`;
    const run = (operationName: string) =>
      api(`${t.url}/graphql`, { method: 'POST', key: m.testKey, body: { query: DOC, operationName } }).then((r) => r.body.data.viewer);
    for (let i = 0; i < 3; i++) {
      expect(await run('Mode')).toEqual({ mode: 'test' });
      expect(await run('Name')).toEqual({ merchant: { name: 'Two Ops' } });
    }
  });
});
