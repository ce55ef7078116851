import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveGraphQLHttp } from '../../schema/http.js';
import { createGraphQLServer } from '../../schema/yoga.js';
import { expectJsonApiHeaders, startEdgeServer, type EdgeServer } from '../helpers/fast-path-sides.js';

/**
 * GraphQL over HTTP goes through Yoga's own node adapter, with its wins as plugins
 * (docs/decisions/fasthttp-yoga-plugins.md): a JSON body read before Yoga is parsed from its bytes,
 * anything else is Yoga's parser's to word; a document that comes back runs compiled.
 */
const QUOTE = `query Quote($input: QuoteInput!) {
  quote(input: $input) {
    __typename
    ... on QueryQuoteSuccess { data { price currency rates { id cost } } }
    ... on AppError { code message }
  }
}`;
const INPUT = { destination: { address: 'Av. Apoquindo 4501, depto 1203, Las Condes' }, totalWeightKg: 2.5, packageType: 'box' };

let server: EdgeServer;
let key: string;
let compilations = 0;

beforeAll(async () => {
  server = await startEdgeServer((edge) => {
    const yoga = createGraphQLServer(edge, { onCompile: () => compilations++ });
    return (req, res) => serveGraphQLHttp(yoga, req, res);
  });
  key = (await server.admin.createMerchant({ input: { name: 'Yoga Shop', address: 'Av. Providencia 1234, Providencia' } })).testKey;
});
afterAll(() => server.stop());

async function post(body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers }, body });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

describe('GraphQL over HTTP through Yoga', () => {
  it('a repeated query is compiled once and answers as the interpreted runs did, with the API headers', async () => {
    const body = JSON.stringify({ query: QUOTE, variables: { input: INPUT } });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await post(body));
    expect(compilations).toBe(1);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expectJsonApiHeaders(answer);
      expect(JSON.parse(answer.body)).toEqual(JSON.parse(answers[0]!.body));
    }
    expect(JSON.parse(answers[3]!.body)).toMatchObject({ data: { quote: { __typename: 'QueryQuoteSuccess', data: { currency: 'CLP' } } } });
  });

  it('bodies that are not a plain JSON object are refused in the words of Yoga’s parser', async () => {
    const malformed = await post('{"query": ');
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body).errors[0].message).toBe('POST body sent invalid JSON.');
    const primitive = await post('"query"');
    expect(primitive.status).toBe(400);
    expect(JSON.parse(primitive.body).errors[0].message).toBe('POST body is expected to be object but received string');
    // A byte-order mark goes to Yoga's parser too, which refuses it as JSON.parse does.
    const bom = await post(`\ufeff${JSON.stringify({ query: '{ __typename }' })}`);
    expect(bom.status).toBe(400);
    expect(JSON.parse(bom.body).errors[0].message).toBe('POST body sent invalid JSON.');
  });

  it('a JSON body parsed from its bytes keeps its variables, operation name and extensions checks', async () => {
    const named = await post(JSON.stringify({ query: `${QUOTE}\nquery Other { __typename }`, operationName: 'Other' }));
    expect(JSON.parse(named.body)).toEqual({ data: { __typename: 'Query' } });
    let nested: unknown = 1;
    for (let i = 0; i < 30; i++) nested = { a: nested };
    const deep = await post(JSON.stringify({ query: '{ __typename }', extensions: nested }));
    expect(deep.status).toBe(400);
    expect(JSON.parse(deep.body).errors[0].extensions.code).toBe('VALIDATION_ERROR');
    const unknown = await post(JSON.stringify({ query: '{ __typename }', extra: true }));
    expect(unknown.status).toBe(400);
  });
});
