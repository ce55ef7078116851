import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import { gqlOps, signedInOperator } from './support.js';

const CREATE = `mutation ($name: String!) { adminCreateMerchant(name: $name) {
  __typename ... on MutationAdminCreateMerchantSuccess { data { merchantId } } ... on AppError { code message } } }`;
const INVITE = `mutation ($merchantId: ID!, $email: String!, $role: MemberRole!) { adminInviteMember(merchantId: $merchantId, email: $email, role: $role) {
  __typename ... on MutationAdminInviteMemberSuccess { data { setPasswordUrl expiresAt member { email role status } } } ... on AppError { code message } } }`;
const SET_PASSWORD = `mutation ($input: SetPasswordInput!) { setPassword(input: $input) { __typename ... on MutationSetPasswordSuccess { data { email } } ... on AppError { code } } }`;

// Issue #38 item 1: an operator creates a merchant with its owner's invitation, from /ops.
describe('adminInviteMember: a merchant with its owner, from /ops', () => {
  let t: TestApp;
  let admin: string;
  let dispatcher: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { SANDBOX_SIMULATOR: 'false', RATE_LIMIT_PER_MIN: '100000', PUBLIC_RATE_LIMIT_PER_MIN: '100000', PUBLIC_BASE_URL: 'https://envios.example.cl' } });
    admin = (await signedInOperator(t, 'ana@ops.example.cl', 'admin')).cookie;
    dispatcher = (await signedInOperator(t, 'dino@ops.example.cl', 'dispatcher')).cookie;
  });
  afterAll(() => t?.stop());

  it('an admin creates a merchant and invites its owner: a one-time set-password link on the public address, audited without the link', async () => {
    const created = await gqlOps(t, admin, CREATE, { variables: { name: 'Panadería La Espiga' } });
    const merchantId = created.body.data.adminCreateMerchant.data.merchantId as string;
    const invited = await gqlOps(t, admin, INVITE, { variables: { merchantId, email: 'Duena@Espiga.CL', role: 'owner' } });
    const data = invited.body.data.adminInviteMember.data;
    expect(data.member).toEqual({ email: 'duena@espiga.cl', role: 'owner', status: 'invited' });
    expect(data.setPasswordUrl).toMatch(new RegExp(`^${t.app.container.config.publicBaseUrl}/console/set-password#token=`));

    // The link works once, in the console.
    const token = new URL(data.setPasswordUrl as string).hash.replace(/^#token=/, '');
    const set = await api(`${t.url}/graphql`, { method: 'POST', headers: { 'x-graphql-csrf': '1' }, body: { query: SET_PASSWORD, variables: { input: { token, password: 'correct horse battery staple' } } } });
    expect(set.body.data.setPassword.data.email).toBe('duena@espiga.cl');

    const audit = await gqlOps(t, admin, `{ adminAuditLog(action: "member.invite") { entries { targetType after } } }`);
    const entries = audit.body.data.adminAuditLog.entries as Array<{ targetType: string; after: string }>;
    expect(entries).toHaveLength(1);
    expect(entries[0]!.after).not.toContain(token);
  });

  it('an unknown merchant is refused as a typed result', async () => {
    const res = await gqlOps(t, admin, INVITE, { variables: { merchantId: 'm_01UNKNOWN0000000000000000', email: 'x@example.cl', role: 'owner' } });
    expect(res.body.data.adminInviteMember.code).toBe('MERCHANT_NOT_FOUND');
  });

  it('is refused to a dispatcher, to no session, and to a merchant API key', async () => {
    const merchant = await t.createMerchant();
    const variables = { merchantId: merchant.merchantId, email: 'intruso@example.cl', role: 'owner' };
    const byDispatcher = await gqlOps(t, dispatcher, INVITE, { variables });
    expect(byDispatcher.body.data?.adminInviteMember ?? null).toBeNull();
    expect(byDispatcher.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN_ROLE');
    const anonymous = await gqlOps(t, null, INVITE, { variables });
    expect(anonymous.body.data?.adminInviteMember ?? null).toBeNull();
    const byKey = await api(`${t.url}/graphql`, { key: merchant.liveKey, body: { query: INVITE, variables } });
    expect(byKey.body.data?.adminInviteMember ?? null).toBeNull();
    expect(await t.app.container.store.members.findByEmail({ merchantId: merchant.merchantId, email: 'intruso@example.cl' })).toBeNull();
  });

  it('the admin token reaches it (automation)', async () => {
    const merchant = await t.createMerchant();
    const res = await api(`${t.url}/graphql`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body: { query: INVITE, variables: { merchantId: merchant.merchantId, email: 'bot@example.cl', role: 'viewer' } } });
    expect(res.body.data.adminInviteMember.data.member.role).toBe('viewer');
  });
});
