import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, api, gql, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';

interface RutSample {
  rut: string;
  valid: boolean;
}
const RUT_SAMPLES = JSON.parse(readFileSync(new URL('../fixtures/rut-samples.json', import.meta.url), 'utf8')) as { valid: RutSample[]; invalid: RutSample[] };

const VIEWER = `query {
  viewer { mode merchant { id name status prepTimeMins address integrationPlatform rateLimitPerMin createdAt
    integrations { plugin storefront erp }
    settings { prepTimeMins address storefrontDomain integrationPlatform webhookPayloadShape webhookCourierLocation } } }
}`;

const UPDATE = `mutation ($input: MerchantSettingsInput!) {
  updateMerchantSettings(input: $input) {
    __typename
    ... on MutationUpdateMerchantSettingsSuccess { data { id prepTimeMins address settings { storefrontDomain webhookPayloadShape } } }
    ... on AppError { code message fields { field message } }
  }
}`;

/** Every admin mutation result selects the typed error the same way. */
const ERR = '... on AppError { code message fields { field message } }';

describe('GraphQL: merchant queries and settings', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  beforeAll(async () => {
    t = await startTestApp();
    m = await t.createMerchant({ name: 'GQL Merchant', address: 'Av. Providencia 1234, Providencia' });
  });
  afterAll(() => t.stop());

  it('viewer returns the merchant and the mode of the key', async () => {
    const res = await gql(t.url, VIEWER, { key: m.liveKey });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.viewer).toMatchObject({
      mode: 'live',
      merchant: {
        id: m.merchantId,
        name: 'GQL Merchant',
        status: 'active',
        prepTimeMins: 0,
        address: 'Av. Providencia 1234, Providencia',
        rateLimitPerMin: 120,
        integrations: { plugin: 'approved', storefront: 'approved', erp: 'approved' },
        settings: { prepTimeMins: 0, webhookPayloadShape: 'event', webhookCourierLocation: false },
      },
    });
    expect(Date.parse(res.body.data.viewer.merchant.createdAt)).not.toBeNaN();
    expect((await gql(t.url, VIEWER, { key: m.testKey })).body.data.viewer.mode).toBe('test');
  });

  it('merchant query works with X-API-Key too, and agrees with REST /merchants/me', async () => {
    const res = await api(`${t.url}/graphql`, {
      headers: { 'x-api-key': m.testKey },
      body: { query: '{ merchant { id name prepTimeMins address } }' },
    });
    expect(res.status).toBe(200);
    const rest = (await api(`${t.url}/api/v1/merchants/me`, { key: m.testKey })).body.merchant;
    expect(res.body.data.merchant).toEqual({ id: rest.id, name: rest.name, prepTimeMins: rest.prep_time_mins, address: rest.address });
  });

  it('no key: INVALID_API_KEY with HTTP 401', async () => {
    const res = await gql(t.url, '{ viewer { mode } }');
    expect(res.status).toBe(401);
    expect(res.body.data).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_API_KEY');
  });

  it('a wrong or revoked key: INVALID_API_KEY with HTTP 401', async () => {
    const r = await t.createMerchant();
    await t.app.container.services.admin.revokeApiKeys({ input: { merchantId: r.merchantId, mode: 'live' } });
    for (const key of [`ak_test_${'Q'.repeat(32)}`, 'ak_live_short', r.liveKey]) {
      const res = await gql(t.url, '{ viewer { mode } }', { key });
      expect(res.status).toBe(401);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_API_KEY');
      expect(res.body.data ?? null).toBeNull();
    }
  });

  it('updateMerchantSettings returns the typed success and stores the change', async () => {
    const res = await gql(t.url, UPDATE, {
      key: m.testKey,
      variables: { input: { prepTimeMins: 25, storefrontDomain: 'gql-shop.myshopify.com', webhookPayloadShape: 'flat' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.updateMerchantSettings).toEqual({
      __typename: 'MutationUpdateMerchantSettingsSuccess',
      data: {
        id: m.merchantId,
        prepTimeMins: 25,
        address: 'Av. Providencia 1234, Providencia',
        settings: { storefrontDomain: 'gql-shop.myshopify.com', webhookPayloadShape: 'flat' },
      },
    });
    const rest = (await api(`${t.url}/api/v1/merchants/me`, { key: m.liveKey })).body.merchant;
    expect(rest.prep_time_mins).toBe(25);
    expect(rest.settings.storefront_domain).toBe('gql-shop.myshopify.com');
  });

  it('bad input (prepTimeMins: 500) is the typed AppError VALIDATION_ERROR, not a thrown error, and stores nothing', async () => {
    const res = await gql(t.url, UPDATE, { key: m.testKey, variables: { input: { prepTimeMins: 500 } } });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.updateMerchantSettings).toMatchObject({
      __typename: 'AppError',
      code: 'VALIDATION_ERROR',
      fields: [{ field: 'prepTimeMins', message: expect.any(String) }],
    });
    expect((await gql(t.url, VIEWER, { key: m.testKey })).body.data.viewer.merchant.prepTimeMins).toBe(25);
  });

  it('an empty input is the typed VALIDATION_ERROR (same rule as POST /merchants/settings with {})', async () => {
    const res = await gql(t.url, UPDATE, { key: m.testKey, variables: { input: {} } });
    expect(res.body.data.updateMerchantSettings).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
  });

  it('a suspended merchant reads viewer but gets the typed ACCOUNT_SUSPENDED on updateMerchantSettings', async () => {
    const s = await t.createMerchant();
    await t.app.container.services.admin.setMerchantStatus({ input: { merchantId: s.merchantId, status: 'suspended' } });
    expect((await gql(t.url, VIEWER, { key: s.liveKey })).body.data.viewer.merchant.status).toBe('suspended');
    const res = await gql(t.url, UPDATE, { key: s.liveKey, variables: { input: { prepTimeMins: 5 } } });
    expect(res.body.data.updateMerchantSettings).toMatchObject({ __typename: 'AppError', code: 'ACCOUNT_SUSPENDED' });
  });

  it('a query nested deeper than 10 is refused, not a 5xx, and nothing resolves', async () => {
    const deep = `{ __type(name: "Merchant") { fields { type { ${'ofType { '.repeat(8)}name${' }'.repeat(8)} } } } }`;
    const res = await gql(t.url, deep, { key: m.testKey });
    expect(res.status).toBeLessThan(500);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].message).toMatch(/depth limit of 10 exceeded/i);

    const fragments = `{ viewer { ${'... on Viewer { '.repeat(10)}mode${' }'.repeat(10)} } }`;
    const viaFragments = await gql(t.url, fragments, { key: m.testKey });
    expect(viaFragments.status).toBeLessThan(500);
    expect(viaFragments.body.errors[0].message).toMatch(/depth limit/i);

    const shallow = `{ __type(name: "Merchant") { fields { type { ofType { ofType { name } } } } } }`;
    expect((await gql(t.url, shallow, { key: m.testKey })).body.data.__type.fields.length).toBeGreaterThan(0);
  });

  it('a syntax error and an unknown field are GraphQL errors, not 5xx', async () => {
    for (const query of ['{ viewer { mode ', '{ viewer { nope } }']) {
      const res = await gql(t.url, query, { key: m.testKey });
      expect(res.status).toBeLessThan(500);
      expect(res.body.errors.length).toBeGreaterThan(0);
    }
  });
});

describe('GraphQL: admin mutations', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.stop());

  const admin = (query: string, variables?: Record<string, unknown>) => gql(t.url, query, { key: ADMIN_TOKEN, ...(variables && { variables }) });
  const me = (key: string) => api(`${t.url}/api/v1/merchants/me`, { key });

  async function createMerchant(name: string) {
    const res = await admin(
      `mutation ($name: String!, $address: String) {
        adminCreateMerchant(name: $name, address: $address) {
          __typename ... on MutationAdminCreateMerchantSuccess { data { merchantId liveKey testKey apiSecret } } ${ERR}
        }
      }`,
      { name, address: 'Av. Italia 1000, Providencia' },
    );
    expect(res.status).toBe(200);
    expect(res.body.data.adminCreateMerchant.__typename).toBe('MutationAdminCreateMerchantSuccess');
    return res.body.data.adminCreateMerchant.data as MerchantCredentials;
  }

  it('adminCreateMerchant returns working one-time credentials', async () => {
    const created = await createMerchant('Admin Made');
    expect(created.liveKey).toMatch(/^ak_live_[0-9A-Za-z]{32}$/);
    expect(created.testKey).toMatch(/^ak_test_[0-9A-Za-z]{32}$/);
    expect(Buffer.from(created.apiSecret.replace(/^whsec_/, ''), 'base64')).toHaveLength(32);
    const res = await me(created.testKey);
    expect(res.status).toBe(200);
    expect(res.body.merchant).toMatchObject({ id: created.merchantId, name: 'Admin Made', status: 'active', address: 'Av. Italia 1000, Providencia' });
    expect(res.body.merchant.integrations).toEqual({ plugin: 'pending_approval', storefront: 'pending_approval', erp: 'pending_approval' });
  });

  it('adminCreateMerchant with a blank name is the typed VALIDATION_ERROR', async () => {
    const res = await admin(`mutation { adminCreateMerchant(name: "  ") { __typename ${ERR} } }`);
    expect(res.body.data.adminCreateMerchant).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'name' }] });
  });

  it('adminRotateApiKey replaces the key of one mode; the old key stops working', async () => {
    const c = await createMerchant('Rotating');
    const res = await admin(
      `mutation ($id: ID!) { adminRotateApiKey(merchantId: $id, mode: live) {
        __typename ... on MutationAdminRotateApiKeySuccess { data { merchantId mode apiKey revoked } } ${ERR} } }`,
      { id: c.merchantId },
    );
    const rotated = res.body.data.adminRotateApiKey;
    expect(rotated.__typename).toBe('MutationAdminRotateApiKeySuccess');
    expect(rotated.data).toMatchObject({ merchantId: c.merchantId, mode: 'live', revoked: 1 });
    expect(rotated.data.apiKey).toMatch(/^ak_live_/);
    expect(rotated.data.apiKey).not.toBe(c.liveKey);
    expect((await me(c.liveKey)).status).toBe(401);
    expect((await me(rotated.data.apiKey)).body.merchant.mode).toBe('live');
    expect((await me(c.testKey)).status).toBe(200);
  });

  it('adminRevokeApiKeys revokes the keys of one mode', async () => {
    const c = await createMerchant('Revoking');
    const res = await admin(
      `mutation ($id: ID!) { adminRevokeApiKeys(merchantId: $id, mode: test) {
        __typename ... on MutationAdminRevokeApiKeysSuccess { data { merchantId mode revoked } } ${ERR} } }`,
      { id: c.merchantId },
    );
    expect(res.body.data.adminRevokeApiKeys).toEqual({
      __typename: 'MutationAdminRevokeApiKeysSuccess',
      data: { merchantId: c.merchantId, mode: 'test', revoked: 1 },
    });
    expect((await me(c.testKey)).status).toBe(401);
    expect((await me(c.liveKey)).status).toBe(200);
  });

  it('admin mutations on an unknown merchant are the typed MERCHANT_NOT_FOUND', async () => {
    const res = await admin(`mutation { adminRevokeApiKeys(merchantId: "m_nope", mode: test) { __typename ${ERR} } }`);
    expect(res.body.data.adminRevokeApiKeys).toMatchObject({ __typename: 'AppError', code: 'MERCHANT_NOT_FOUND' });
  });

  it('adminSetMerchantStatus suspends (REST settings then 403) and reactivates', async () => {
    const c = await createMerchant('Status');
    const setStatus = (status: string) =>
      admin(
        `mutation ($id: ID!, $status: MerchantStatus!) { adminSetMerchantStatus(merchantId: $id, status: $status) {
          __typename ... on MutationAdminSetMerchantStatusSuccess { data { id status } } ${ERR} } }`,
        { id: c.merchantId, status },
      );
    expect((await setStatus('suspended')).body.data.adminSetMerchantStatus.data).toEqual({ id: c.merchantId, status: 'suspended' });
    const patch = await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', key: c.liveKey, body: { prep_time_mins: 3 } });
    expect(patch.status).toBe(403);
    expect(patch.body.error.code).toBe('ACCOUNT_SUSPENDED');
    expect((await setStatus('active')).body.data.adminSetMerchantStatus.data.status).toBe('active');
    expect((await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', key: c.liveKey, body: { prep_time_mins: 3 } })).status).toBe(200);
  });

  it('adminSetIntegrationStatus approves one integration', async () => {
    const c = await createMerchant('Integrations');
    const res = await admin(
      `mutation ($id: ID!) { adminSetIntegrationStatus(merchantId: $id, integration: plugin, status: approved) {
        __typename ... on MutationAdminSetIntegrationStatusSuccess { data { integrations { plugin storefront erp } } } ${ERR} } }`,
      { id: c.merchantId },
    );
    expect(res.body.data.adminSetIntegrationStatus.data.integrations).toEqual({ plugin: 'approved', storefront: 'pending_approval', erp: 'pending_approval' });
    expect((await me(c.testKey)).body.merchant.integrations.plugin).toBe('approved');
  });

  it('adminSetMerchantRateLimit sets and clears the override', async () => {
    const c = await createMerchant('Limits');
    const set = (perMin: number | null) =>
      admin(
        `mutation ($id: ID!, $perMin: Int) { adminSetMerchantRateLimit(merchantId: $id, perMin: $perMin) {
          __typename ... on MutationAdminSetMerchantRateLimitSuccess { data { rateLimitPerMin } } ${ERR} } }`,
        { id: c.merchantId, perMin },
      );
    expect((await set(500)).body.data.adminSetMerchantRateLimit.data.rateLimitPerMin).toBe(500);
    expect((await me(c.liveKey)).headers.get('ratelimit-limit')).toBe('500');
    expect((await set(0)).body.data.adminSetMerchantRateLimit).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
    expect((await set(null)).body.data.adminSetMerchantRateLimit.data.rateLimitPerMin).toBe(120);
  });

  it('adminCreateCourier returns a courier token once; a bad phone is the typed VALIDATION_ERROR', async () => {
    const create = (phone: string) =>
      admin(
        `mutation ($phone: String!) { adminCreateCourier(name: "Ana Rider", phone: $phone, vehicle: motorcycle, plate: "ab cd 12", mode: test) {
          __typename ... on MutationAdminCreateCourierSuccess { data { courierId token mode } } ${ERR} } }`,
        { phone },
      );
    const ok = await create('+56912345678');
    expect(ok.body.data.adminCreateCourier.__typename).toBe('MutationAdminCreateCourierSuccess');
    expect(ok.body.data.adminCreateCourier.data).toMatchObject({ mode: 'test', token: expect.stringMatching(/^ct_[0-9A-Za-z]{40}$/) });
    const bad = await create('hello');
    expect(bad.body.data.adminCreateCourier).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'phone' }] });
  });

  it('adminCreateUser normalises a valid RUT; a repeated one is the typed CONFLICT', async () => {
    const create = (rut: string) =>
      admin(
        `mutation ($rut: String!) { adminCreateUser(rut: $rut, name: "Juan Pérez") {
          __typename ... on MutationAdminCreateUserSuccess { data { userId rut } } ${ERR} } }`,
        { rut },
      );
    // The fixture lists some RUTs in several spellings: the first registers, the others are the same person.
    const registered = new Set<string>();
    for (const sample of RUT_SAMPLES.valid) {
      const normalised = sample.rut.replace(/\./g, '').toUpperCase();
      const result = (await create(sample.rut)).body.data.adminCreateUser;
      if (registered.has(normalised)) {
        expect(result, sample.rut).toMatchObject({ __typename: 'AppError', code: 'CONFLICT' });
      } else {
        expect(result, sample.rut).toEqual({ __typename: 'MutationAdminCreateUserSuccess', data: { userId: expect.any(String), rut: normalised } });
        registered.add(normalised);
      }
    }
    expect(registered.size).toBeGreaterThanOrEqual(3);
  });

  it('adminCreateUser with a bad RUT is the typed VALIDATION_ERROR on field rut', async () => {
    for (const sample of RUT_SAMPLES.invalid) {
      const res = await admin(`mutation ($rut: String!) { adminCreateUser(rut: $rut) { __typename ${ERR} } }`, { rut: sample.rut });
      expect(res.body.errors, sample.rut).toBeUndefined();
      expect(res.body.data.adminCreateUser, sample.rut).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'rut' }] });
    }
  });

  describe('authorization', () => {
    const CREATE = `mutation { adminCreateMerchant(name: "Sneaky") { __typename ${ERR} } }`;

    it('a merchant key gets FORBIDDEN (HTTP 403) and nothing is created', async () => {
      const c = await createMerchant('Not An Admin');
      const before = await t.app.container.services.admin.listMerchants({ limit: 200 });
      for (const key of [c.liveKey, c.testKey]) {
        const res = await gql(t.url, CREATE, { key });
        expect(res.status).toBe(403);
        expect(res.body.data).toBeNull();
        expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
      }
      const revoke = await gql(t.url, `mutation { adminRevokeApiKeys(merchantId: "${c.merchantId}", mode: live) { __typename } }`, { key: c.testKey });
      expect(revoke.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect((await me(c.liveKey)).status).toBe(200);
      expect(await t.app.container.services.admin.listMerchants({ limit: 200 })).toHaveLength(before.length);
    });

    it('a wrong admin token is 401 INVALID_ADMIN_TOKEN; no credentials is 401 INVALID_API_KEY', async () => {
      const wrong = await gql(t.url, CREATE, { key: `${ADMIN_TOKEN}x` });
      expect(wrong.status).toBe(401);
      expect(wrong.body.errors[0].extensions.code).toBe('INVALID_ADMIN_TOKEN');
      const none = await gql(t.url, CREATE);
      expect(none.status).toBe(401);
      expect(none.body.errors[0].extensions.code).toBe('INVALID_API_KEY');
    });

    it('the admin token is not a merchant: viewer is FORBIDDEN', async () => {
      const res = await gql(t.url, '{ viewer { mode } }', { key: ADMIN_TOKEN });
      expect(res.status).toBe(403);
      expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
    });

    it('adminMerchants lists merchants for the admin only', async () => {
      const c = await createMerchant('Listed');
      const res = await admin('{ adminMerchants(limit: 200) { id name } }');
      expect(res.body.data.adminMerchants).toContainEqual({ id: c.merchantId, name: 'Listed' });
      expect((await gql(t.url, '{ adminMerchants { id } }', { key: c.liveKey })).body.errors[0].extensions.code).toBe('FORBIDDEN');
    });
  });
});
