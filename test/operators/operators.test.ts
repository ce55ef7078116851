import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_FIELD_PERMISSIONS } from '../../schema/admin-access.js';
import { buildSchema } from '../../schema/index.js';
import { operatorMay, type OperatorPermission } from '../../src/domain/operators/roles.js';
import { OPERATOR_ROLES, type OperatorRole } from '../../src/domain/types.js';
import { ADMIN_TOKEN, api, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { signedIn as memberSignedIn } from '../members/support.js';
import { codeOf, gqlOps, inviteOperator, OPERATOR_ME, operationFor, opsCookieFrom, PASSWORD, SET_PASSWORD, SIGN_OUT, signedInOperator, signIn } from './support.js';

const schema = buildSchema();
const rootFields = (kind: 'query' | 'mutation') => Object.values((kind === 'query' ? schema.getQueryType() : schema.getMutationType())!.getFields());
/** Every admin field of the schema, with its root. */
const ADMIN_FIELDS = (['query', 'mutation'] as const).flatMap((kind) => rootFields(kind).filter((f) => f.name.startsWith('admin')).map((field) => ({ kind, field })));
/** Every field only operators (and the admin token) reach: the admin fields and the signed-in operator's own. */
const OPERATOR_ONLY_FIELDS = (['query', 'mutation'] as const).flatMap((kind) =>
  rootFields(kind)
    .filter((f) => f.name.startsWith('admin') || f.name === 'operatorMe')
    .map((field) => ({ kind, field })),
);
const REFUSALS = ['FORBIDDEN', 'FORBIDDEN_ROLE', 'INVALID_API_KEY', 'INVALID_SESSION'];

describe('operators (issue #29)', { timeout: 120_000 }, () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  const cookies = {} as Record<OperatorRole, string>;
  const ids = {} as Record<OperatorRole, string>;

  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_RATE_LIMIT_PER_MIN: '100000', RATE_LIMIT_PER_MIN: '100000', MEMBER_MAX_SESSIONS: '3' } });
    shop = await t.createMerchant({ name: 'Ops Shop' });
    for (const role of OPERATOR_ROLES) {
      const signed = await signedInOperator(t, `${role}@ops.example.cl`, role);
      cookies[role] = signed.cookie;
      ids[role] = signed.id;
    }
  });
  afterAll(() => t.stop());

  const asToken = (query: string, variables?: Record<string, unknown>) =>
    api(`${t.url}/graphql`, { method: 'POST', key: ADMIN_TOKEN, body: { query, variables } });

  it('every admin field of the schema has a role rule, and every rule names a field', () => {
    const subscriptions = Object.values(schema.getSubscriptionType()!.getFields()).filter((f) => f.name.startsWith('admin'));
    const names = [...ADMIN_FIELDS.map((f) => f.field.name), ...subscriptions.map((f) => f.name)].sort();
    expect(names).toEqual(Object.keys(ADMIN_FIELD_PERMISSIONS).sort());
  });

  describe.each(OPERATOR_ROLES)('role %s', (role) => {
    it.each(ADMIN_FIELDS.map((f) => [f.field.name, f] as const))('%s: allowed exactly when the role grants its permission', async (_name, { kind, field }) => {
      const permission = ADMIN_FIELD_PERMISSIONS[field.name as keyof typeof ADMIN_FIELD_PERMISSIONS] as OperatorPermission;
      const { query, variables } = operationFor(schema, kind, field);
      const res = await gqlOps(t, cookies[role], query, { variables });
      const code = codeOf(res.body, field.name);
      if (operatorMay(role, permission)) expect(REFUSALS).not.toContain(code);
      else expect(code).toBe('FORBIDDEN_ROLE');
    });
  });

  it.each(ADMIN_FIELDS.map((f) => [f.field.name, f] as const))('the admin token reaches %s', async (_name, { kind, field }) => {
    const { query, variables } = operationFor(schema, kind, field);
    const res = await asToken(query, variables);
    expect(REFUSALS).not.toContain(codeOf(res.body, field.name));
  });

  it('a merchant member session, an API key and a courier token are refused by every operator and admin field', async () => {
    const member = await memberSignedIn(t, shop.merchantId, 'owner@shop.example.cl', 'owner');
    const courier = await t.app.container.services.admin.createCourier({ input: { name: 'Ana', phone: '+56911112222', vehicle: 'bike', plate: 'AB1234', mode: 'test' } });
    const callers: Array<[string, (q: string, v: Record<string, unknown>) => ReturnType<typeof api>]> = [
      // The member cookie, as the console sends it, and with the operator scope asked for (it is then ignored).
      ['member session', (query, variables) => api(`${t.url}/graphql`, { method: 'POST', headers: { cookie: member, 'x-graphql-csrf': '1' }, body: { query, variables } })],
      ['member session, operator scope', (query, variables) => gqlOps(t, member, query, { variables })],
      ['API key', (query, variables) => api(`${t.url}/graphql`, { method: 'POST', key: shop.testKey, body: { query, variables } })],
      ['courier token', (query, variables) => api(`${t.url}/graphql`, { method: 'POST', key: courier.token, body: { query, variables } })],
      ['anonymous', (query, variables) => api(`${t.url}/graphql`, { method: 'POST', body: { query, variables } })],
    ];
    for (const [label, call] of callers) {
      for (const { kind, field } of OPERATOR_ONLY_FIELDS) {
        const { query, variables } = operationFor(schema, kind, field);
        const code = codeOf((await call(query, variables)).body, field.name);
        expect(REFUSALS, `${label} → ${field.name}: ${code}`).toContain(code);
      }
    }
  });

  it('an operator session never reaches merchant fields, and only with the operator scope reaches its own', async () => {
    const cookie = cookies.admin;
    const me = await gqlOps(t, cookie, OPERATOR_ME);
    expect(me.body.data.operatorMe).toEqual({ id: ids.admin, email: 'admin@ops.example.cl', role: 'admin' });
    for (const query of ['{ me { role } }', '{ members { id } }', '{ orders(first: 1) { edges { node { id } } } }']) {
      const res = await gqlOps(t, cookie, query);
      expect(res.body.errors?.[0]?.extensions?.code, query).toMatch(/INVALID_API_KEY|FORBIDDEN|GRAPHQL_VALIDATION_FAILED/);
      expect(res.body.data?.me ?? null).toBeNull();
    }
    // Without the scope header the operator cookie is not read at all: the request is anonymous.
    const unscoped = await gqlOps(t, cookie, OPERATOR_ME, { scope: false });
    expect(codeOf(unscoped.body, 'operatorMe')).toBe('INVALID_API_KEY');
    // Without the CSRF header the cookie authenticates nothing.
    const noCsrf = await api(`${t.url}/graphql`, { method: 'POST', headers: { cookie, 'x-session-scope': 'operator' }, body: { query: OPERATOR_ME } });
    expect(noCsrf.body.errors[0].extensions.code).toBe('CSRF_REQUIRED');
  });

  it('the cookie is exd_ops_session (HttpOnly, SameSite=Lax); sign-out ends the session; the session cap ends the oldest', async () => {
    await signedInOperator(t, 'cap@ops.example.cl', 'support');
    const sessions: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await signIn(t, 'cap@ops.example.cl');
      const header = res.headers.getSetCookie().find((c) => c.startsWith('exd_ops_session='))!;
      expect(header).toMatch(/HttpOnly/);
      expect(header).toMatch(/SameSite=Lax/);
      sessions.push(opsCookieFrom(res.headers)!);
    }
    // MEMBER_MAX_SESSIONS=3: the operator's first-signed-in sessions (one from signedInOperator, then the first here) ended.
    expect(codeOf((await gqlOps(t, sessions[0]!, OPERATOR_ME)).body, 'operatorMe')).toBe('INVALID_SESSION');
    expect((await gqlOps(t, sessions[3]!, OPERATOR_ME)).body.data.operatorMe.email).toBe('cap@ops.example.cl');
    const out = await gqlOps(t, sessions[3]!, SIGN_OUT);
    expect(out.body.data.operatorSignOut.__typename).toBe('MutationOperatorSignOutSuccess');
    expect(codeOf((await gqlOps(t, sessions[3]!, OPERATOR_ME)).body, 'operatorMe')).toBe('INVALID_SESSION');
  });

  it('a wrong password, an unknown email and an invited operator are the same INVALID_CREDENTIALS; a link works once', async () => {
    const { token } = await inviteOperator(t, 'new@ops.example.cl', 'dispatcher');
    const invited = await signIn(t, 'new@ops.example.cl');
    expect(invited.body.data.operatorSignIn.code).toBe('INVALID_CREDENTIALS');
    expect((await signIn(t, 'nobody@ops.example.cl')).body.data.operatorSignIn.code).toBe('INVALID_CREDENTIALS');
    expect((await signIn(t, 'admin@ops.example.cl', 'wrong password!')).body.data.operatorSignIn.code).toBe('INVALID_CREDENTIALS');
    const set = await gqlOps(t, null, SET_PASSWORD, { variables: { input: { token, password: PASSWORD } } });
    expect(set.body.data.operatorSetPassword.data.email).toBe('new@ops.example.cl');
    const again = await gqlOps(t, null, SET_PASSWORD, { variables: { input: { token, password: PASSWORD } } });
    expect(again.body.data.operatorSetPassword.code).toBe('PASSWORD_TOKEN_INVALID');
    // A member's link token is no operator's, and the reverse (separate stores).
    expect((await signIn(t, 'new@ops.example.cl')).body.data.operatorSignIn.data.operator.role).toBe('dispatcher');
  });

  it('disabling an operator ends its sessions at once and it cannot sign in', async () => {
    const { id, cookie } = await signedInOperator(t, 'leaving@ops.example.cl', 'dispatcher');
    const disable = await gqlOps(t, cookies.admin, 'mutation ($id: ID!) { adminSetOperatorStatus(operatorId: $id, status: disabled) { __typename ... on MutationAdminSetOperatorStatusSuccess { data { status } } } }', { variables: { id } });
    expect(disable.body.data.adminSetOperatorStatus.data.status).toBe('disabled');
    expect(codeOf((await gqlOps(t, cookie, OPERATOR_ME)).body, 'operatorMe')).toBe('INVALID_SESSION');
    expect((await signIn(t, 'leaving@ops.example.cl')).body.data.operatorSignIn.code).toBe('INVALID_CREDENTIALS');
  });

  it('admin actions are audited with who, what, target and before/after (never a secret); filtered and paged', async () => {
    const courier = await t.app.container.services.admin.createCourier({ input: { name: 'Beto', phone: '+56933334444', vehicle: 'car', plate: 'CD5678', mode: 'live' } });
    const disable = await gqlOps(t, cookies.dispatcher, 'mutation ($id: ID!) { adminDisableCourier(courierId: $id) { __typename } }', { variables: { id: courier.courierId } });
    expect(disable.body.data.adminDisableCourier.__typename).toBe('MutationAdminDisableCourierSuccess');
    const suspend = await asToken('mutation ($m: ID!) { adminSetMerchantStatus(merchantId: $m, status: suspended) { __typename } }', { m: shop.merchantId });
    expect(suspend.body.data.adminSetMerchantStatus.__typename).toBe('MutationAdminSetMerchantStatusSuccess');
    await asToken('mutation ($m: ID!) { adminRotateApiKey(merchantId: $m, mode: test) { __typename } }', { m: shop.merchantId });
    const note = await gqlOps(t, cookies.support, 'mutation ($id: ID!) { adminAddNote(targetType: courier, targetId: $id, text: "Llamó: rueda pinchada") { __typename } }', { variables: { id: courier.courierId } });
    expect(note.body.data.adminAddNote.__typename).toBe('MutationAdminAddNoteSuccess');

    const LIST = `query ($actor: String, $action: String, $targetType: AuditTargetType, $targetId: ID, $first: Int, $after: String, $from: DateTime) {
      adminAuditLog(actor: $actor, action: $action, targetType: $targetType, targetId: $targetId, first: $first, after: $after, from: $from) {
        entries { id at actor { kind operatorId email } action targetType targetId before after } nextCursor } }`;
    const list = async (variables: Record<string, unknown>, cookie = cookies.support) => {
      const res = await gqlOps(t, cookie, LIST, { variables });
      expect(res.body.errors).toBeUndefined();
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON
      return res.body.data.adminAuditLog as { entries: Array<Record<string, any>>; nextCursor: string | null };
    };
    const byCourier = await list({ targetType: 'courier', targetId: courier.courierId });
    expect(byCourier.entries.map((e) => e.action)).toEqual(['note.add', 'courier.disable']);
    const [noted, disabled] = byCourier.entries;
    expect(disabled).toMatchObject({ actor: { kind: 'operator', operatorId: ids.dispatcher, email: 'dispatcher@ops.example.cl' }, targetType: 'courier' });
    expect(JSON.parse(disabled!.before)).toEqual({ accountStatus: 'active', dutyStatus: 'off_duty' });
    expect(JSON.parse(disabled!.after)).toMatchObject({ accountStatus: 'disabled' });
    expect(JSON.parse(noted!.after)).toEqual({ text: 'Llamó: rueda pinchada' });

    const byToken = await list({ actor: 'admin_token', targetId: shop.merchantId });
    expect(byToken.entries.map((e) => e.action)).toEqual(['api_key.rotate', 'merchant.set_status']);
    expect(JSON.parse(byToken.entries[1]!.before).status).toBe('active');
    expect(JSON.parse(byToken.entries[1]!.after).status).toBe('suspended');
    // No secret in any snapshot: the rotated key is not there.
    const all = JSON.stringify((await list({ first: 200 })).entries);
    expect(all).not.toMatch(/ak_(live|test)_|whsec_|ct_[A-Za-z0-9]|pt_[A-Za-z0-9_-]{20}|scrypt\$/);

    // Keyset pages, newest first, with no overlap.
    const first = await list({ first: 2 });
    const second = await list({ first: 2, after: first.nextCursor });
    expect(first.entries).toHaveLength(2);
    expect(second.entries[0]!.id < first.entries[1]!.id).toBe(true);
    // The operator invitations of beforeAll were made as the CLI.
    expect((await list({ actor: 'cli', action: 'operator.invite' })).entries.length).toBeGreaterThanOrEqual(3);
    // Hostile filters are 4xx-style validation, never a 500.
    const bad = await gqlOps(t, cookies.support, LIST, { variables: { first: 100000, after: "x' OR 1=1" } });
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  });
});
