import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PLACES, startOrdersApp } from '../orders/support.js';
import { gqlAs, SET_PASSWORD, signedIn, tokenOf } from './support.js';

const ERR = '... on AppError { code message }';
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { __typename ... on MutationCreateOrderSuccess { data { id isTest } } ${ERR} } }`;
const CANCEL = `mutation ($id: String!) { cancelOrder(id: $id, reason: "cliente desistió") { __typename ... on MutationCancelOrderSuccess { data { id status } } ${ERR} } }`;
const ORDER = `query ($id: String!) { order(id: $id) { __typename ... on QueryOrderSuccess { data { id status } } ${ERR} } }`;
const ROTATE = `mutation { rotateApiKey(mode: test) { __typename ... on MutationRotateApiKeySuccess { data { apiKey revoked } } ${ERR} } }`;
const SECRET = `mutation { rotateApiSecret { __typename ... on MutationRotateApiSecretSuccess { data { apiSecret } } ${ERR} } }`;
const SETTINGS = `mutation { updateMerchantSettings(input: { prepTimeMins: 7 }) { __typename ${ERR} } }`;
const ENDPOINT = `mutation { createWebhookEndpoint(input: { url: "https://hooks.example.com/exd" }) { __typename ${ERR} } }`;
const INVITE = `mutation ($email: String!, $role: MemberRole!) { inviteMember(input: { email: $email, role: $role }) {
  __typename ... on MutationInviteMemberSuccess { data { setPasswordUrl member { id email role status } } } ${ERR} } }`;
const REMOVE = `mutation ($id: ID!) { removeMember(id: $id) { __typename ... on MutationRemoveMemberSuccess { data { id } } ${ERR} } }`;
const CHANGE = `mutation ($id: ID!, $role: MemberRole!) { changeMemberRole(id: $id, role: $role) { __typename ... on MutationChangeMemberRoleSuccess { data { id role } } ${ERR} } }`;
const MEMBERS = '{ members { id email role status } }';

const orderInput = () => ({
  pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia },
  dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes },
  customerName: 'Camila Rojas',
  customerPhone: '+56912345678',
});

describe('Team members: roles enforced by the domain, merchants and modes kept apart', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  let rival: MerchantCredentials;
  let owner: string;
  let dispatcher: string;
  let viewer: string;
  let rivalOwner: string;
  beforeAll(async () => {
    t = await startOrdersApp();
    shop = await t.createMerchant({ name: 'Roles Shop' });
    rival = await t.createMerchant({ name: 'Rival Shop' });
    [owner, dispatcher, viewer, rivalOwner] = await Promise.all([
      signedIn(t, shop.merchantId, 'owner@tienda.cl', 'owner'),
      signedIn(t, shop.merchantId, 'dispatch@tienda.cl', 'dispatcher'),
      signedIn(t, shop.merchantId, 'viewer@tienda.cl', 'viewer'),
      signedIn(t, rival.merchantId, 'owner@rival.cl', 'owner'),
    ]);
  });
  afterAll(() => t.stop());

  const create = async (cookie: string) => (await gqlAs(t, cookie, CREATE, { variables: { input: orderInput() } })).body.data.createOrder;

  it('a viewer reads orders but cannot create or cancel one (FORBIDDEN_ROLE); a dispatcher can do both', async () => {
    const created = await create(dispatcher);
    expect(created).toMatchObject({ __typename: 'MutationCreateOrderSuccess', data: { isTest: true } });
    const id = created.data.id as string;
    expect((await gqlAs(t, viewer, ORDER, { variables: { id } })).body.data.order).toMatchObject({ data: { id, status: expect.any(String) } });
    expect(await create(viewer)).toMatchObject({ __typename: 'AppError', code: 'FORBIDDEN_ROLE' });
    const refused = (await gqlAs(t, viewer, CANCEL, { variables: { id } })).body.data.cancelOrder;
    expect(refused).toEqual({ __typename: 'AppError', code: 'FORBIDDEN_ROLE', message: 'A viewer cannot do this: it needs a dispatcher or an owner' });
    expect((await gqlAs(t, viewer, ORDER, { variables: { id } })).body.data.order.data.status).not.toBe('cancelled');
    expect((await gqlAs(t, dispatcher, CANCEL, { variables: { id } })).body.data.cancelOrder).toMatchObject({ data: { id, status: 'cancelled' } });
  });

  it('a dispatcher cannot rotate a key or the signing secret, change settings, webhooks or members; the owner can', async () => {
    for (const [name, query] of Object.entries({ ROTATE, SECRET, SETTINGS, ENDPOINT })) {
      for (const cookie of [dispatcher, viewer]) {
        const res = await gqlAs(t, cookie, query);
        expect(Object.values(res.body.data as object)[0], name).toMatchObject({ __typename: 'AppError', code: 'FORBIDDEN_ROLE' });
      }
    }
    expect((await gqlAs(t, dispatcher, INVITE, { variables: { email: 'x@tienda.cl', role: 'owner' } })).body.data.inviteMember.code).toBe('FORBIDDEN_ROLE');

    const rotated = (await gqlAs(t, owner, ROTATE)).body.data.rotateApiKey;
    expect(rotated).toMatchObject({ __typename: 'MutationRotateApiKeySuccess', data: { apiKey: expect.stringMatching(/^ak_test_/), revoked: 1 } });
    // The rotated-out key stops working; the new one works and, as an API key, acts as owner.
    expect((await gql(t.url, '{ me { role } }', { key: shop.testKey })).body.errors[0].extensions.code).toBe('INVALID_API_KEY');
    const byKey = await gql(t.url, SETTINGS, { key: rotated.data.apiKey });
    expect(byKey.body.data.updateMerchantSettings.__typename).toBe('MutationUpdateMerchantSettingsSuccess');
    expect((await gqlAs(t, owner, SECRET)).body.data.rotateApiSecret.data.apiSecret).toMatch(/^whsec_/);
  });

  it('an owner invites, changes roles and removes members; the last owner cannot leave; a removed member is signed out', async () => {
    const invited = (await gqlAs(t, owner, INVITE, { variables: { email: 'New@Tienda.cl', role: 'viewer' } })).body.data.inviteMember;
    expect(invited.data).toMatchObject({ setPasswordUrl: expect.stringContaining('/console/set-password#token=pt_'), member: { email: 'new@tienda.cl', role: 'viewer', status: 'invited' } });
    const team = (await gqlAs(t, viewer, MEMBERS)).body.data.members as Array<{ id: string; email: string; role: string }>;
    expect(team.map((m) => m.email)).toEqual(['owner@tienda.cl', 'dispatch@tienda.cl', 'viewer@tienda.cl', 'new@tienda.cl']);
    const ownerId = team[0]!.id;
    expect((await gqlAs(t, owner, CHANGE, { variables: { id: ownerId, role: 'viewer' } })).body.data.changeMemberRole.code).toBe('CONFLICT');
    expect((await gqlAs(t, owner, REMOVE, { variables: { id: ownerId } })).body.data.removeMember.code).toBe('CONFLICT');

    const leaving = await signedIn(t, shop.merchantId, 'temp@tienda.cl', 'dispatcher');
    const leavingId = (await gqlAs(t, leaving, '{ me { member { id } } }')).body.data.me.member.id as string;
    expect((await gqlAs(t, owner, CHANGE, { variables: { id: leavingId, role: 'viewer' } })).body.data.changeMemberRole.data.role).toBe('viewer');
    // A role change signs the member out; so does removal.
    expect((await gqlAs(t, leaving, '{ me { role } }')).body.errors[0].extensions.code).toBe('INVALID_SESSION');
    expect((await gqlAs(t, owner, REMOVE, { variables: { id: leavingId } })).body.data.removeMember.data.id).toBe(leavingId);
    expect((await gqlAs(t, owner, REMOVE, { variables: { id: leavingId } })).body.data.removeMember.code).toBe('NOT_FOUND');
  });

  it('an owner gives a member a new set-password link (resetMemberPassword); a dispatcher or another merchant cannot', async () => {
    const RESET = `mutation ($id: ID!) { resetMemberPassword(id: $id) { __typename ... on MutationResetMemberPasswordSuccess { data { setPasswordUrl member { email status } } } ${ERR} } }`;
    const forgetful = await signedIn(t, shop.merchantId, 'forgot@tienda.cl', 'viewer');
    const id = (await gqlAs(t, forgetful, '{ me { member { id } } }')).body.data.me.member.id as string;
    expect((await gqlAs(t, dispatcher, RESET, { variables: { id } })).body.data.resetMemberPassword.code).toBe('FORBIDDEN_ROLE');
    expect((await gqlAs(t, rivalOwner, RESET, { variables: { id } })).body.data.resetMemberPassword.code).toBe('NOT_FOUND');
    const first = (await gqlAs(t, owner, RESET, { variables: { id } })).body.data.resetMemberPassword;
    expect(first.data).toMatchObject({ setPasswordUrl: expect.stringContaining('/console/set-password#token=pt_'), member: { email: 'forgot@tienda.cl', status: 'active' } });
    const second = (await gqlAs(t, owner, RESET, { variables: { id } })).body.data.resetMemberPassword;
    // The member is still signed in; only the newest link works.
    expect((await gqlAs(t, forgetful, '{ me { role } }')).body.data.me.role).toBe('viewer');
    const use = (url: string) => gqlAs(t, null, SET_PASSWORD, { variables: { input: { token: tokenOf(url), password: 'another good passphrase' } } });
    expect((await use(first.data.setPasswordUrl)).body.data.setPassword.code).toBe('PASSWORD_TOKEN_INVALID');
    expect((await use(second.data.setPasswordUrl)).body.data.setPassword.__typename).toBe('MutationSetPasswordSuccess');
    expect((await gqlAs(t, forgetful, '{ me { role } }')).body.errors[0].extensions.code).toBe('INVALID_SESSION');
  });

  it('two owners demoting each other at the same moment: one succeeds, the other is refused, an owner always stays', async () => {
    const team = await t.createMerchant({ name: 'Two Owners' });
    const [first, second] = await Promise.all([signedIn(t, team.merchantId, 'uno@tienda.cl', 'owner'), signedIn(t, team.merchantId, 'dos@tienda.cl', 'owner')]);
    const ids = ((await gqlAs(t, first, MEMBERS)).body.data.members as Array<{ id: string }>).map((m) => m.id);
    const answers = await Promise.all([
      gqlAs(t, first, CHANGE, { variables: { id: ids[1], role: 'viewer' } }),
      gqlAs(t, second, CHANGE, { variables: { id: ids[0], role: 'viewer' } }),
    ]);
    // The loser is refused by the last-owner rule, or (when the winner's demotion ended its session first) signed out.
    const outcome = (r: (typeof answers)[number]) => (r.body.data?.changeMemberRole.__typename === 'MutationChangeMemberRoleSuccess' ? 'ok' : (r.body.data?.changeMemberRole.code ?? r.body.errors[0].extensions.code));
    const outcomes = answers.map(outcome);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(outcomes.find((o) => o !== 'ok')).toMatch(/^(CONFLICT|INVALID_SESSION)$/);
    const winner = outcomes[0] === 'ok' ? first : second;
    const owners = ((await gqlAs(t, winner, MEMBERS)).body.data.members as Array<{ role: string; status: string }>).filter((m) => m.role === 'owner' && m.status === 'active');
    expect(owners).toHaveLength(1);
  });

  it('a member of one merchant sees and touches nothing of another', async () => {
    const theirs = (await create(rivalOwner)).data.id as string;
    expect((await gqlAs(t, owner, ORDER, { variables: { id: theirs } })).body.data.order.code).toBe('ORDER_NOT_FOUND');
    expect((await gqlAs(t, owner, CANCEL, { variables: { id: theirs } })).body.data.cancelOrder.code).toBe('ORDER_NOT_FOUND');
    const rivalTeam = (await gqlAs(t, rivalOwner, MEMBERS)).body.data.members as Array<{ id: string; email: string }>;
    expect(rivalTeam.map((m) => m.email)).toEqual(['owner@rival.cl']);
    expect((await gqlAs(t, owner, REMOVE, { variables: { id: rivalTeam[0]!.id } })).body.data.removeMember.code).toBe('NOT_FOUND');
    expect((await gqlAs(t, owner, CHANGE, { variables: { id: rivalTeam[0]!.id, role: 'viewer' } })).body.data.changeMemberRole.code).toBe('NOT_FOUND');
    const keys = (await gqlAs(t, owner, '{ apiKeys { prefix } }')).body.data.apiKeys as Array<{ prefix: string }>;
    expect(keys.every((k) => !k.prefix.startsWith(rival.liveKey.slice(0, 12)))).toBe(true);
    expect((await gqlAs(t, owner, '{ me { merchant { id } } }')).body.data.me.merchant.id).toBe(shop.merchantId);
  });

  it('the mode is the request’s choice and never mixed: a test order is not found in live mode', async () => {
    const testOrder = (await create(dispatcher)).data.id as string;
    expect((await gqlAs(t, dispatcher, ORDER, { variables: { id: testOrder }, mode: 'live' })).body.data.order.code).toBe('ORDER_NOT_FOUND');
    const live = (await gqlAs(t, dispatcher, CREATE, { variables: { input: orderInput() }, mode: 'live' })).body.data.createOrder;
    expect(live.data.isTest).toBe(false);
    expect((await gqlAs(t, dispatcher, ORDER, { variables: { id: live.data.id }, mode: 'test' })).body.data.order.code).toBe('ORDER_NOT_FOUND');
  });
});
