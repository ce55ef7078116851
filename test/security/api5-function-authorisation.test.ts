/**
 * OWASP API2:2023 Broken Authentication and API5:2023 Broken Function Level Authorization.
 * Every documented operation (from the OpenAPI document) and every GraphQL root field (from the
 * schema) is called with every kind of credential: none, junk, a merchant key of each mode, a
 * courier token, the admin token. Only the kind each function is for gets past authentication.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getNamedType, isInputObjectType, isListType, isNonNullType, isScalarType, isEnumType, type GraphQLField, type GraphQLInputType } from 'graphql';
import { buildSchema } from '../../schema/index.js';
import { ADMIN_TOKEN, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { createCourier, type CourierClient } from '../orders/support.js';
import { call, documentedOperations, pathWith, startSecurityApp, type Operation } from './support.js';

type Who = 'none' | 'junk' | 'merchantTest' | 'merchantLive' | 'courier' | 'admin';
const EVERYONE: Who[] = ['none', 'junk', 'merchantTest', 'merchantLive', 'courier', 'admin'];

describe('API2/API5: authentication and function-level authorisation', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let courier: CourierClient;
  const headersOf = (who: Who): Record<string, string> =>
    ({
      none: {},
      junk: { authorization: 'Bearer ak_test_0000000000000000000000000000000000000000000' },
      merchantTest: { authorization: `Bearer ${m.testKey}` },
      merchantLive: { 'x-api-key': m.liveKey },
      courier: { authorization: `Bearer ${courier.token}` },
      admin: { authorization: `Bearer ${ADMIN_TOKEN}` },
    })[who];

  beforeAll(async () => {
    t = await startSecurityApp();
    m = await t.createMerchant({ name: 'Function Level Shop' });
    courier = await createCourier(t, { mode: 'test' });
  });
  afterAll(() => t?.stop());

  describe('REST: every documented operation', () => {
    const ops = documentedOperations();
    /** Who each route group is for; the rest must be refused with 401. */
    const allowed = (op: Operation): Who[] => (op.auth === 'public' ? EVERYONE : op.auth === 'courier' ? ['courier'] : op.auth === 'admin' ? ['admin'] : ['merchantTest', 'merchantLive']);
    /** Sandbox helpers are for test keys: a live key authenticates, then is refused (403 FORBIDDEN). */
    const sandboxOnly = (op: Operation) => op.path.startsWith('/sandbox/');
    const refusal = (op: Operation) => (op.auth === 'courier' ? 'INVALID_COURIER_TOKEN' : op.auth === 'admin' ? 'INVALID_ADMIN_TOKEN' : 'INVALID_API_KEY');

    it('the document has the four groups (public, merchant key, courier token, admin token: the operators\' cash-on-delivery writes)', () => {
      expect(new Set(ops.map((op) => op.auth))).toEqual(new Set(['public', 'merchant', 'courier', 'admin']));
      expect(ops.filter((op) => op.auth === 'public').map((op) => `${op.method} ${op.path}`).sort()).toEqual(
        // The courier app's sign-in (a one-time code) and sign-out (of whatever session the cookie names), and hosted proofs (a signed link).
        ['GET /docs', 'GET /health', 'GET /openapi.json', 'GET /tracking/{reference}', 'GET /tracking/stops/{orderId}/{stopId}', 'POST /couriers/sessions', 'DELETE /couriers/sessions/current', 'GET /proofs/{id}'].sort(),
      );
    });

    it.each(EVERYONE)('with %s credentials: only the operations meant for them get past authentication', async (who) => {
      for (const op of ops) {
        const path = op.pathParams.length ? pathWith(op, 'bk_00000000000000000000000000') : `/api/v1${op.path}`;
        const res = await call(t, op, path, headersOf(who));
        const what = `${op.method} ${op.path} as ${who} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
        if (sandboxOnly(op) && who === 'merchantLive') {
          expect([res.status, res.body.error?.code], what).toEqual([403, 'FORBIDDEN']);
        } else if (allowed(op).includes(who)) {
          expect([401, 403], what).not.toContain(res.status);
        } else {
          expect(res.status, what).toBe(401);
          expect(res.body.error.code, what).toBe(refusal(op));
        }
      }
    });

    it('the public tracking endpoint ignores credentials: a junk key does not turn it into a 401', async () => {
      const res = await call(t, ops.find((op) => op.path === '/tracking/{reference}')!, '/api/v1/tracking/NOPE123', headersOf('junk'));
      expect(res.status).toBe(404);
    });
  });

  describe('GraphQL: every root field', () => {
    interface Field {
      kind: 'query' | 'mutation' | 'subscription';
      field: GraphQLField<unknown, unknown>;
      /** operator: only a signed-in operator (issue #29; its role tests are in test/operators). */
      scope: 'merchant' | 'courier' | 'admin' | 'operator' | 'public';
    }
    const fields: Field[] = (() => {
      const schema = buildSchema();
      return ([['query', schema.getQueryType()], ['mutation', schema.getMutationType()], ['subscription', schema.getSubscriptionType()]] as const).flatMap(([kind, type]) =>
        Object.values(type!.getFields()).map((field) => {
          const scopes = ((field.extensions as { pothosOptions?: { authScopes?: Record<string, unknown> } }).pothosOptions?.authScopes ?? {}) as Record<string, unknown>;
          return { kind, field, scope: (['admin', 'courier', 'merchant', 'operator'] as const).find((s) => scopes[s]) ?? ('public' as const) };
        }),
      );
    })();

    /** A placeholder of the right type for a required argument. */
    function placeholder(type: GraphQLInputType): unknown {
      if (isNonNullType(type)) return placeholder(type.ofType);
      if (isListType(type)) return [];
      if (isEnumType(type)) return type.getValues()[0]!.name;
      if (isInputObjectType(type)) {
        return Object.fromEntries(Object.values(type.getFields()).filter((f) => isNonNullType(f.type)).map((f) => [f.name, placeholder(f.type)]));
      }
      if (isScalarType(type)) return ({ Int: 1, Float: 1, Boolean: true, DateTime: '2024-01-01T00:00:00Z' } as Record<string, unknown>)[type.name] ?? 'x';
      return null;
    }

    function documentFor(f: Field): { query: string; variables: Record<string, unknown> } {
      const args = f.field.args.filter((a) => isNonNullType(a.type));
      const defs = args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
      const named = getNamedType(f.field.type);
      const selection = isScalarType(named) || isEnumType(named) ? '' : '{ __typename }';
      return {
        query: `${f.kind}${defs ? ` (${defs})` : ''} { ${f.field.name}${args.length ? `(${args.map((a) => `${a.name}: $${a.name}`).join(', ')})` : ''} ${selection} }`,
        variables: Object.fromEntries(args.map((a) => [a.name, placeholder(a.type)])),
      };
    }

    /** The authentication/authorisation error code of a call, or 'passed' when it got past them. */
    async function gate(f: Field, who: Who): Promise<string> {
      const res = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: f.kind === 'subscription' ? 'text/event-stream' : 'application/json', ...headersOf(who) },
        body: JSON.stringify(documentFor(f)),
        signal: AbortSignal.timeout(1_500),
      });
      let text: string;
      try {
        text = await res.text();
      } catch {
        return 'passed'; // a subscription that opened and is waiting for events
      }
      const codes = [...text.matchAll(/"code":"(\w+)"/g)].map((c) => c[1]!);
      return codes.find((c) => ['INVALID_API_KEY', 'INVALID_COURIER_TOKEN', 'INVALID_ADMIN_TOKEN', 'FORBIDDEN'].includes(c)) ?? 'passed';
    }

    const expected = (f: Field, who: Who): string => {
      if (who === 'junk') return 'INVALID_API_KEY';
      if (f.scope === 'public') return 'passed';
      const holds: Record<Who, Field['scope'] | null> = { none: null, junk: null, merchantTest: 'merchant', merchantLive: 'merchant', courier: 'courier', admin: 'admin' };
      if (holds[who] === f.scope) return 'passed';
      return who === 'none' ? 'INVALID_API_KEY' : 'FORBIDDEN';
    };

    /**
     * Passed with a merchant key, these revoke the sweep's own keys (they pass the gate: an API key
     * acts as owner); their role gates are checked in test/members/roles.test.ts.
     */
    const REVOKES_CALLER_KEYS = new Set(['rotateApiKey', 'revokeApiKeys']);

    it('every root field declares who may call it (only `tracking` and the sign-in mutations are public)', () => {
      // logIn, logOut and setPassword are a person's way in (team members); their own checks are in test/members.
      // The operator* ones are an operator's (issue #29), checked in test/operators.
      expect(fields.filter((f) => f.scope === 'public').map((f) => f.field.name)).toEqual([
        'logIn', 'logOut', 'operatorSetPassword', 'operatorSignIn', 'operatorSignOut', 'setPassword', 'tracking',
      ]);
      expect(fields.filter((f) => f.scope === 'admin').length).toBeGreaterThanOrEqual(12);
    });

    it.each(EVERYONE)('with %s credentials: each field answers as its scope says', async (who) => {
      for (const f of fields) {
        if (REVOKES_CALLER_KEYS.has(f.field.name) && (who === 'merchantTest' || who === 'merchantLive')) continue;
        expect(await gate(f, who), `${f.kind} ${f.field.name} (${f.scope}) as ${who}`).toBe(expected(f, who));
      }
    });

    it('merchant keys and courier tokens never reach admin mutations: FORBIDDEN, and nothing changes', async () => {
      const before = await t.app.container.services.admin.listMerchants({ limit: 200 });
      const mutations = [
        'mutation { adminCreateMerchant(name: "Sneaky") { __typename } }',
        `mutation { adminSetMerchantRateLimit(merchantId: "${m.merchantId}", perMin: 100000) { __typename } }`,
        `mutation { adminSetMerchantStatus(merchantId: "${m.merchantId}", status: active) { __typename } }`,
        `mutation { adminRotateApiKey(merchantId: "${m.merchantId}", mode: live) { __typename } }`,
      ];
      for (const key of [m.testKey, m.liveKey, courier.token]) {
        for (const query of mutations) {
          const res = await fetch(`${t.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
            body: JSON.stringify({ query }),
          });
          const body = (await res.json()) as { data: unknown; errors: Array<{ extensions: { code: string } }> };
          expect(res.status, query).toBe(403);
          expect(body.data, query).toBeNull();
          expect(body.errors.map((e) => e.extensions.code), query).toEqual(['FORBIDDEN']);
        }
      }
      // The merchant's own limit and live key are unchanged.
      expect((await t.app.container.services.admin.getMerchant(m.merchantId)).rateLimitPerMin).toBeNull();
      expect((await fetch(`${t.url}/api/v1/merchants/me`, { headers: { 'x-api-key': m.liveKey } })).status).toBe(200);
      expect(await t.app.container.services.admin.listMerchants({ limit: 200 })).toHaveLength(before.length);
    });
  });
});
