import { AppError } from '../src/domain/errors.js';
import type { Invitation, SignedIn } from '../src/domain/members/service.js';
import { changeMemberRoleCommandSchema, inviteMemberCommandSchema, loginCommandSchema, setPasswordCommandSchema } from '../src/domain/members/schemas.js';
import { MEMBER_ROLES, type Member, type MemberRole, type Merchant, type Mode } from '../src/domain/types.js';
import { adminOf, adminScopes } from './admin-access.js';
import { builder } from './builder.js';
import { commandOf } from './commands.js';
import type { BrowserSession, GraphQLContext } from './context.js';
import { MerchantRef, merchantOf, ModeEnum } from './merchants.js';

const MemberRoleEnum = builder.enumType('MemberRole', {
  values: MEMBER_ROLES,
  description: 'owner: everything; dispatcher: run deliveries (quote, create, cancel, batches, redeliver webhooks); viewer: read only.',
});
const MemberStatusEnum = builder.enumType('MemberStatus', { values: ['invited', 'active'] as const });

/** A team member: never its password hash. */
const MemberRef = builder.objectRef<Member>('Member').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    email: t.exposeString('email'),
    role: t.field({ type: MemberRoleEnum, resolve: (m) => m.role }),
    status: t.field({ type: MemberStatusEnum, resolve: (m) => m.status }),
    createdAt: t.field({ type: 'DateTime', resolve: (m) => m.createdAt }),
  }),
});

const MeRef = builder.objectRef<{ member: Member | null; role: MemberRole; merchant: Merchant; mode: Mode }>('Me').implement({
  description: 'The caller: a signed-in member (member set) or an API key (member null, acting as owner).',
  fields: (t) => ({
    member: t.field({ type: MemberRef, nullable: true, resolve: (me) => me.member }),
    role: t.field({ type: MemberRoleEnum, resolve: (me) => me.role }),
    mode: t.field({ type: ModeEnum, resolve: (me) => me.mode }),
    merchant: t.field({ type: MerchantRef, resolve: (me) => me.merchant }),
  }),
});

const InvitationRef = builder.objectRef<Invitation>('MemberInvitation').implement({
  fields: (t) => ({
    member: t.field({ type: MemberRef, resolve: (i) => i.member }),
    setPasswordUrl: t.exposeString('setPasswordUrl', { description: 'The one-time set-password link: shown once, only its hash is kept.' }),
    expiresAt: t.field({ type: 'DateTime', resolve: (i) => i.expiresAt }),
  }),
});

const MembershipRef = builder.objectRef<SignedIn['memberships'][number]>('Membership').implement({
  description: 'A merchant the signed-in person belongs to, and the member it is there.',
  fields: (t) => ({
    merchant: t.field({ type: MerchantRef, resolve: (m) => m.merchant }),
    member: t.field({ type: MemberRef, resolve: (m) => m.member }),
  }),
});

const SignedInRef = builder.objectRef<SignedIn>('SignedIn').implement({
  fields: (t) => ({
    member: t.field({ type: MemberRef, resolve: (s) => s.member }),
    merchant: t.field({ type: MerchantRef, description: 'The merchant the session is in.', resolve: (s) => s.memberships.find((m) => m.member.id === s.member.id)!.merchant }),
    memberships: t.field({
      type: [MembershipRef],
      description: 'Every merchant this email and password opened (at most 5, oldest first). With more than one, the person chooses: signing in again with `merchantId` moves the session there.',
      resolve: (s) => s.memberships,
    }),
    expiresAt: t.field({ type: 'DateTime', description: 'The session ends then at the latest (and earlier when left unused).', resolve: (s) => s.expiresAt }),
  }),
});

const PasswordSetRef = builder.objectRef<{ merchantId: string; email: string }>('PasswordSet').implement({
  description: 'What the sign-in that follows needs.',
  fields: (t) => ({ merchantId: t.exposeID('merchantId'), email: t.exposeString('email') }),
});

const LogInInput = builder.inputType('LogInInput', {
  fields: (t) => ({
    merchantId: t.id({ required: false, description: 'Optional: the merchant to sign into. Without it the session opens in the oldest membership the password opens (see SignedIn.memberships).' }),
    email: t.string({ required: true }),
    password: t.string({ required: true }),
  }),
});
const SetPasswordInput = builder.inputType('SetPasswordInput', {
  fields: (t) => ({ token: t.string({ required: true }), password: t.string({ required: true }) }),
});
const InviteMemberInput = builder.inputType('InviteMemberInput', {
  fields: (t) => ({ email: t.string({ required: true }), role: t.field({ type: MemberRoleEnum, required: true }) }),
});

/** Signing in and out sets a cookie: only over HTTP, from a request that carries the CSRF header. */
function browserOf(ctx: GraphQLContext): BrowserSession {
  if (!ctx.browser?.csrfChecked) throw new AppError('CSRF_REQUIRED', 'Sign in and out over HTTP with the X-GraphQL-CSRF header (the console does)');
  return ctx.browser;
}

/**
 * One operation takes one unit of the caller's budget however many fields it holds: each further
 * password-hashing field (aliased logIn or setPassword) takes one more, so aliases cannot multiply
 * the hashes that one unit buys.
 */
const hashingOperations = new WeakSet<GraphQLContext>();
async function chargeHashingField(ctx: GraphQLContext): Promise<void> {
  if (hashingOperations.has(ctx)) await ctx.services.frontDoor.admit(ctx.caller);
  hashingOperations.add(ctx);
}

builder.queryFields((t) => ({
  me: t.field({
    type: MeRef,
    authScopes: { merchant: true },
    resolve: (_r, _a, ctx) => ctx.services.members.me({ principal: merchantOf(ctx, 'profile') }),
  }),
  members: t.field({
    type: [MemberRef],
    description: "The merchant's team, oldest first.",
    authScopes: { merchant: true },
    resolve: (_r, _a, ctx) => ctx.services.members.listMembers({ principal: merchantOf(ctx, 'profile') }),
  }),
}));

builder.mutationFields((t) => ({
  logIn: t.field({
    type: SignedInRef,
    description: 'Email and password (and optionally the merchant) → the session cookie (HttpOnly, SameSite=Lax). Any wrong part is the same INVALID_CREDENTIALS.',
    errors: {},
    args: { input: t.arg({ type: LogInInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const browser = browserOf(ctx);
      await chargeHashingField(ctx);
      const signedIn = await ctx.services.frontDoor.logIn({ address: ctx.caller.address, input: commandOf(loginCommandSchema, { email: input.email, password: input.password, ...(input.merchantId != null && { merchantId: String(input.merchantId) }) }) });
      // A browser signing in again ends the session it had.
      if (browser.sessionId) await ctx.services.members.logOut({ sessionId: browser.sessionId });
      browser.setSession({ sessionId: signedIn.sessionId, expiresAt: signedIn.expiresAt });
      return signedIn;
    },
  }),
  logOut: t.field({
    type: 'Boolean',
    description: 'Ends the session of the cookie and clears it (true even when there was none).',
    errors: {},
    resolve: async (_r, _a, ctx) => {
      const browser = browserOf(ctx);
      await ctx.services.members.logOut({ sessionId: browser.sessionId });
      browser.setSession(null);
      return true;
    },
  }),
  setPassword: t.field({
    type: PasswordSetRef,
    description: "Uses a set-password link's token once; the member's other sessions end.",
    errors: {},
    args: { input: t.arg({ type: SetPasswordInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      await chargeHashingField(ctx);
      return ctx.services.members.setPassword({ input: commandOf(setPasswordCommandSchema, input) });
    },
  }),
  adminInviteMember: t.field({
    type: InvitationRef,
    description:
      "Invites a person to a merchant's console (the merchant's first owner, issue #38): a one-time set-password link, shown once. An email invited but without a password gets a new link; an active member is a CONFLICT.",
    authScopes: adminScopes('adminInviteMember'),
    errors: {},
    args: { merchantId: t.arg.id({ required: true }), email: t.arg.string({ required: true }), role: t.arg({ type: MemberRoleEnum, required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).inviteMember({ input: { merchantId: String(args.merchantId), email: args.email, role: args.role } }),
  }),
  inviteMember: t.field({
    type: InvitationRef,
    description: 'Owner only.',
    authScopes: { merchant: true },
    errors: {},
    args: { input: t.arg({ type: InviteMemberInput, required: true }) },
    resolve: (_r, { input }, ctx) => ctx.services.members.inviteMember({ principal: merchantOf(ctx, 'settings'), input: commandOf(inviteMemberCommandSchema, input) }),
  }),
  resetMemberPassword: t.field({
    type: InvitationRef,
    description:
      'Owner only. A new set-password link for a member who forgot the password: the member keeps its password and sessions until the link is used, which signs it out everywhere. Only the newest link works.',
    authScopes: { merchant: true },
    errors: {},
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => ctx.services.members.resetMemberPassword({ principal: merchantOf(ctx, 'settings'), memberId: String(args.id) }),
  }),
  removeMember: t.field({
    type: MemberRef,
    description: 'Owner only. The member is signed out at once (open sockets within the credential recheck).',
    authScopes: { merchant: true },
    errors: {},
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => ctx.services.members.removeMember({ principal: merchantOf(ctx, 'settings'), memberId: String(args.id) }),
  }),
  changeMemberRole: t.field({
    type: MemberRef,
    description: 'Owner only. The member is signed out, so the new role applies from its next sign-in.',
    authScopes: { merchant: true },
    errors: {},
    args: { id: t.arg.id({ required: true }), role: t.arg({ type: MemberRoleEnum, required: true }) },
    resolve: (_r, args, ctx) =>
      ctx.services.members.changeMemberRole({ principal: merchantOf(ctx, 'settings'), input: commandOf(changeMemberRoleCommandSchema, { memberId: String(args.id), role: args.role }) }),
  }),
}));
