/**
 * OWASP API3:2023 Broken Object Property Level Authorization (excessive data exposure). No
 * response carries a property it should not: no key, secret, hash, ciphertext or token where the
 * caller is not being handed a fresh credential; no customer data on any public tracking channel
 * (REST, page, live socket, GraphQL subscription); no merchant secret on courier endpoints or in
 * the webhook delivery log; and GraphQL exposes credential fields only on admin mutation results.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getNamedType, isObjectType, isUnionType, type GraphQLNamedType } from 'graphql';
import { buildSchema } from '../../schema/index.js';
import { buildOpenApiDocument } from '../../rest/openapi/document.js';
import { ADMIN_TOKEN, api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { expectOk, formA, type CourierClient } from '../orders/support.js';
import { assignedOrder, customerDataIn, openLive, CUSTOMER } from '../realtime/support.js';
import { startReceiver, waitFor, type Receiver } from '../webhooks/support.js';
import { credentialFragments, startSecurityApp } from './support.js';

/** Property names that would carry a credential or its stored form. */
/** Credential-bearing results of merchant mutations that only an owner may call (src/domain/members/roles.ts). */
const OWNER_RESULTS = new Set(['MemberInvitation', 'NewApiKey', 'NewApiSecret']);
const SENSITIVE_NAME = /secret|(?<!geo)hash|cipher|password|salt|token|api_?key|live_?key|test_?key|master/i;

/** Every property name in a JSON value, with its path. */
function propertyNames(value: unknown, at = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => propertyNames(v, `${at}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [`${at}.${k}`, ...propertyNames(v, `${at}.${k}`)]);
  return [];
}

const sensitiveProperties = (value: unknown) => propertyNames(value).filter((p) => SENSITIVE_NAME.test(p.split('.').pop()!));

describe('API3: property-level exposure', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let receiver: Receiver;
  let order: { booking_id: string; tracking_number: string; order_number: string };
  let courier: CourierClient;
  const secrets: string[] = [ADMIN_TOKEN];

  /** No credential, whole or in part, in `text`. */
  const expectNoSecrets = (text: string, what: string) => {
    for (const secret of secrets) for (const fragment of credentialFragments(secret)) expect(text.includes(fragment), `${what} contains ${fragment.slice(0, 10)}…`).toBe(false);
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startSecurityApp({ WEBHOOK_WORKER: 'true', WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_SCALE: '0.0002' });
    m = await t.createMerchant({ name: 'Property Shop' });
    // A receiver that fails once then accepts: the log holds failed and successful attempts.
    receiver.respond((_r, previous) => (previous.length === 0 ? 500 : 200));
    // Test-mode endpoint on the local receiver (sandbox may reach loopback here).
    expectOk(await api(`${t.url}/api/v1/webhooks`, { key: m.testKey, body: { url: `${receiver.url}/hooks` } }), 201);
    ({ order, courier } = await assignedOrder(t, m.liveKey, { courierName: 'Rodrigo Courier' }));
    secrets.push(m.liveKey, m.testKey, m.apiSecret, courier.token);
    // One test-mode order so the local receiver gets deliveries (and a failure, then a retry).
    expectOk(await api(`${t.url}/api/v1/orders`, { key: m.testKey, body: formA({ customer_name: CUSTOMER.name }) }), 201);
    await waitFor(() => receiver.acknowledged().length > 0, { what: 'a delivered webhook' });
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  it('/merchants/me carries no key, secret or hash, with either key and either header', async () => {
    for (const headers of [{ authorization: `Bearer ${m.liveKey}` }, { 'x-api-key': m.testKey }] as Array<Record<string, string>>) {
      const res = expectOk(await api(`${t.url}/api/v1/merchants/me`, { headers }));
      expectNoSecrets(JSON.stringify(res.body), '/merchants/me');
      expect(sensitiveProperties(res.body)).toEqual([]);
    }
  });

  it('settings updates and error answers do not echo credentials', async () => {
    const settings = expectOk(await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', key: m.testKey, body: { prep_time_mins: 5 } }));
    expectNoSecrets(JSON.stringify(settings.body), 'settings');
    const wrong = await api(`${t.url}/api/v1/merchants/me`, { key: `${m.liveKey}x` });
    expect(wrong.status).toBe(401);
    expectNoSecrets(JSON.stringify(wrong.body), 'a 401');
  });

  it('the GraphQL merchant views carry no credential either', async () => {
    const res = await gql(t.url, '{ viewer { mode merchant { id name status address rateLimitPerMin settings { prepTimeMins storefrontDomain webhookPayloadShape } integrations { plugin } } } merchant { id } }', { key: m.testKey });
    expect(res.body.errors).toBeUndefined();
    expectNoSecrets(JSON.stringify(res.body), 'viewer');
  });

  describe('public tracking shows no customer data', () => {
    it('REST GET /tracking/{reference}, by tracking number and by order number', async () => {
      for (const ref of [order.tracking_number, order.order_number]) {
        const res = expectOk(await api(`${t.url}/api/v1/tracking/${ref}`));
        const text = JSON.stringify(res.body);
        expect(customerDataIn(text), ref).toEqual([]);
        expect(propertyNames(res.body).filter((p) => /customer|rut|notes|instructions|email/i.test(p))).toEqual([]);
        expectNoSecrets(text, 'tracking');
      }
    });

    it('the tracking page', async () => {
      const page = await fetch(`${t.url}/track/${order.tracking_number}`);
      expect(page.status).toBe(200);
      expect(customerDataIn(await page.text())).toEqual([]);
    });

    it('the live socket: snapshot, status and position messages', async () => {
      const client = openLive(t.url, order.tracking_number);
      try {
        await client.waitFor((msg) => msg.type === 'snapshot', 'the snapshot');
        expectOk(await courier.status(order.booking_id, 'arrived_pickup'));
        expectOk(await courier.position({ lat: -33.43, lng: -70.6 }));
        await client.waitFor((msg) => msg.type === 'status', 'a status message');
        await client.waitFor((msg) => msg.type === 'position', 'a position message');
        const frames = client.frames.join('\n');
        expect(customerDataIn(frames)).toEqual([]);
        expectNoSecrets(frames, 'tracking socket');
      } finally {
        await client.close();
      }
    });

    it('the GraphQL tracking subscription (no credentials)', async () => {
      const controller = new AbortController();
      const res = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: `subscription { tracking(reference: "${order.tracking_number}") { reference status location { lat lng } estimatedDeliveryTime at } }` }),
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      let text = '';
      const read = (async () => {
        while (!text.includes('event: next')) {
          const { value, done } = await reader.read();
          if (done) break;
          text += Buffer.from(value).toString('utf8');
        }
      })();
      await new Promise((r) => setTimeout(r, 100));
      expectOk(await courier.status(order.booking_id, 'picked_up'));
      await Promise.race([read, new Promise((r) => setTimeout(r, 5_000))]);
      controller.abort();
      expect(text).toContain('event: next');
      expect(customerDataIn(text)).toEqual([]);
      expectNoSecrets(text, 'tracking subscription');
    });
  });

  it('courier endpoints carry no merchant secret and no token (REST and GraphQL)', async () => {
    const answers = [await courier.me(), await courier.orders(), await courier.position({ lat: -33.431, lng: -70.601 })];
    for (const res of answers) {
      expectOk(res);
      expectNoSecrets(JSON.stringify(res.body), 'courier endpoint');
      expect(sensitiveProperties(res.body)).toEqual([]);
    }
    const viaGraphQL = await gql(t.url, '{ courier { id name status isTest location { lat lng } driver { id name phone vehiclePlate } activeOrders { id trackingNumber status customerName } } }', { key: courier.token });
    expect(viaGraphQL.body.errors).toBeUndefined();
    expectNoSecrets(JSON.stringify(viaGraphQL.body), 'GraphQL courier');
  });

  it('the webhook endpoints and delivery log (REST and GraphQL) carry no secret or signature', async () => {
    const endpoints = expectOk(await api(`${t.url}/api/v1/webhooks`, { key: m.testKey }));
    const list = expectOk(await api(`${t.url}/api/v1/webhooks/deliveries?limit=100`, { key: m.testKey }));
    expect(list.body.deliveries.length).toBeGreaterThan(0);
    const retried = list.body.deliveries.find((d: { attempts: number }) => d.attempts > 1) ?? list.body.deliveries[0];
    const detail = expectOk(await api(`${t.url}/api/v1/webhooks/deliveries/${retried.id}`, { key: m.testKey }));
    expect(detail.body.attempts.length).toBeGreaterThan(0);
    const graph = await gql(t.url, '{ webhookDeliveries(first: 100) { ... on QueryWebhookDeliveriesSuccess { data { id payload lastError attemptLog { statusCode error } } } } webhookEndpoints { id url } }', { key: m.testKey });
    expect(graph.body.errors).toBeUndefined();
    // What the receiver got was signed: the signature (and the secret) must not be in the log.
    const signatures = receiver.receipts.flatMap((r) => r.signature.split(' ').map((s) => s.replace(/^v1,/, '')));
    expect(signatures.length).toBeGreaterThan(0);
    for (const res of [endpoints.body, list.body, detail.body, graph.body]) {
      const text = JSON.stringify(res);
      expectNoSecrets(text, 'webhook log');
      expect(text).not.toContain('whsec_');
      for (const signature of signatures) expect(text).not.toContain(signature);
      expect(sensitiveProperties(res)).toEqual([]);
    }
  });

  it("GraphQL exposes credential fields only on the results of admin mutations and of the owner's own credential mutations", () => {
    const schema = buildSchema();
    const roots = new Set(['Query', 'Mutation', 'Subscription']);
    const types = Object.values(schema.getTypeMap()).filter((type) => isObjectType(type) && !type.name.startsWith('__') && !roots.has(type.name));
    const sensitive = types.flatMap((type) =>
      Object.keys((type as { getFields(): Record<string, unknown> }).getFields())
        .filter((name) => SENSITIVE_NAME.test(name))
        .map((name) => `${type.name}.${name}`),
    );
    expect(sensitive.sort()).toEqual(
      [
        'CreatedCourier.token', 'CreatedMerchant.apiSecret', 'CreatedMerchant.liveKey', 'CreatedMerchant.testKey', 'RotatedApiKey.apiKey', 'RotatedApiSecret.apiSecret',
        'RotatedCourierToken.token', 'MemberInvitation.setPasswordUrl', 'OperatorInvitation.setPasswordUrl', 'NewApiKey.apiKey', 'NewApiSecret.apiSecret',
      ].sort(),
    );
    // Which root fields can return each of those types (directly, or as a union member's `data`)?
    const returns = (root: GraphQLNamedType, target: string): boolean => {
      if (root.name === target) return true;
      if (isUnionType(root)) return root.getTypes().some((member) => returns(member, target));
      if (isObjectType(root) && root.name.endsWith('Success')) return getNamedType(root.getFields().data!.type).name === target;
      return false;
    };
    for (const holder of new Set(sensitive.map((s) => s.split('.')[0]!))) {
      const reachable = [schema.getQueryType()!, schema.getMutationType()!, schema.getSubscriptionType()!].flatMap((rootType) =>
        Object.values(rootType.getFields()).filter((f) => returns(getNamedType(f.type), holder)),
      );
      expect(reachable.length, holder).toBeGreaterThan(0);
      for (const field of reachable) {
        const scopes = (field.extensions as { pothosOptions?: { authScopes?: Record<string, boolean> } }).pothosOptions?.authScopes;
        // The merchant's own new key, secret and invitation link: merchant scope, owner role (checked in the domain: test/members/roles.test.ts).
        // Admin results: the admin token, or an operator whose role has the field's permission (test/operators); never a merchant.
        // An operator's invitation of a merchant's owner (adminInviteMember) returns one too: admin scopes, never a merchant's.
        const ownersOwn = OWNER_RESULTS.has(holder) && !field.name.startsWith('admin');
        if (ownersOwn) expect(scopes, `${field.name} returns ${holder}`).toEqual({ merchant: true });
        else expect(Object.keys(scopes ?? {}).sort(), `${field.name} returns ${holder}`).toEqual(expect.arrayContaining(['admin']));
        if (!ownersOwn) expect(Object.keys(scopes ?? {}).filter((s) => s !== 'admin' && s !== 'operator'), `${field.name} returns ${holder}`).toEqual([]);
      }
    }
  });

  it('the REST OpenAPI document has no credential property in any response schema', () => {
    const doc = buildOpenApiDocument();
    const offenders = propertyNames(doc.components?.schemas ?? {})
      .filter((p) => /\.properties\.[^.]+$/.test(p))
      .filter((p) => SENSITIVE_NAME.test(p.split('.').pop()!));
    expect(offenders).toEqual([]);
  });
});
