import { AppError } from '../src/domain/errors.js';
import { operatorLoginCommandSchema, operatorSetPasswordCommandSchema } from '../src/domain/operators/schemas.js';
import type { OperatorInvitation } from '../src/domain/operators/service.js';
import { AUDIT_TARGET_TYPES, OPERATOR_ROLES, OPERATOR_STATUSES, type AuditEntry, type Operator } from '../src/domain/types.js';
import { adminOf, adminScopes } from './admin-access.js';
import { builder } from './builder.js';
import { commandOf } from './commands.js';
import type { BrowserSession, GraphQLContext } from './context.js';

const OperatorRoleEnum = builder.enumType('OperatorRole', {
  values: OPERATOR_ROLES,
  description: 'admin: everything; dispatcher: reads, notes, couriers and orders; support: reads and notes.',
});
const OperatorStatusEnum = builder.enumType('OperatorStatus', { values: OPERATOR_STATUSES });
const OperatorSettableStatusEnum = builder.enumType('OperatorSettableStatus', { values: ['active', 'disabled'] as const });
const AuditTargetTypeEnum = builder.enumType('AuditTargetType', { values: AUDIT_TARGET_TYPES });
const AuditActorKindEnum = builder.enumType('AuditActorKind', {
  values: ['operator', 'admin_token', 'cli'] as const,
  description: 'operator: a signed-in operator; admin_token: the ADMIN_TOKEN (automation); cli: the admin CLI.',
});

/** An operator: never its password hash. */
const OperatorRef = builder.objectRef<Operator>('Operator').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    email: t.exposeString('email'),
    role: t.field({ type: OperatorRoleEnum, resolve: (o) => o.role }),
    status: t.field({ type: OperatorStatusEnum, resolve: (o) => o.status }),
    createdAt: t.field({ type: 'DateTime', resolve: (o) => o.createdAt }),
  }),
});

const OperatorInvitationRef = builder.objectRef<OperatorInvitation>('OperatorInvitation').implement({
  fields: (t) => ({
    operator: t.field({ type: OperatorRef, resolve: (i) => i.operator }),
    setPasswordUrl: t.exposeString('setPasswordUrl', { description: 'The one-time set-password link: shown once, only its hash is kept.' }),
    expiresAt: t.field({ type: 'DateTime', resolve: (i) => i.expiresAt }),
  }),
});

const OperatorSignedInRef = builder.objectRef<{ operator: Operator; expiresAt: string }>('OperatorSignedIn').implement({
  fields: (t) => ({
    operator: t.field({ type: OperatorRef, resolve: (s) => s.operator }),
    expiresAt: t.field({ type: 'DateTime', resolve: (s) => s.expiresAt }),
  }),
});

const OperatorPasswordSetRef = builder.objectRef<{ email: string }>('OperatorPasswordSet').implement({
  description: 'What the sign-in that follows needs.',
  fields: (t) => ({ email: t.exposeString('email') }),
});

const OperatorCallerRef = builder.objectRef<{ id: string; email: string; role: Operator['role'] }>('OperatorCaller').implement({
  fields: (t) => ({ id: t.exposeID('id'), email: t.exposeString('email'), role: t.field({ type: OperatorRoleEnum, resolve: (o) => o.role }) }),
});

const AuditActorRef = builder.objectRef<AuditEntry>('AuditActor').implement({
  fields: (t) => ({
    kind: t.field({ type: AuditActorKindEnum, resolve: (e) => e.actorKind }),
    operatorId: t.exposeID('actorId', { nullable: true }),
    email: t.exposeString('actorEmail', { nullable: true }),
  }),
});

const AuditEntryRef = builder.objectRef<AuditEntry>('AuditEntry').implement({
  description: 'One audited action: who, when, what, on what, with small before/after snapshots (JSON; never a secret).',
  fields: (t) => ({
    id: t.exposeID('id'),
    at: t.field({ type: 'DateTime', resolve: (e) => e.at }),
    actor: t.field({ type: AuditActorRef, resolve: (e) => e }),
    action: t.exposeString('action'),
    targetType: t.field({ type: AuditTargetTypeEnum, resolve: (e) => e.targetType }),
    targetId: t.exposeID('targetId'),
    before: t.string({ nullable: true, description: 'JSON object, or null.', resolve: (e) => (e.before ? JSON.stringify(e.before) : null) }),
    after: t.string({ nullable: true, description: 'JSON object, or null.', resolve: (e) => (e.after ? JSON.stringify(e.after) : null) }),
  }),
});

const AuditPageRef = builder.objectRef<{ entries: AuditEntry[]; nextCursor: string | null }>('AuditPage').implement({
  fields: (t) => ({
    entries: t.field({ type: [AuditEntryRef], resolve: (p) => p.entries }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Pass as `after` for the next (older) page; null on the last.' }),
  }),
});

const OperatorSignInInput = builder.inputType('OperatorSignInInput', {
  fields: (t) => ({ email: t.string({ required: true }), password: t.string({ required: true }) }),
});
const OperatorSetPasswordInput = builder.inputType('OperatorSetPasswordInput', {
  fields: (t) => ({ token: t.string({ required: true }), password: t.string({ required: true }) }),
});

/** Signing in and out sets the operator cookie: only over HTTP, with the CSRF header. */
function browserOf(ctx: GraphQLContext): BrowserSession {
  if (!ctx.browser?.csrfChecked) throw new AppError('CSRF_REQUIRED', 'Sign in and out over HTTP with the X-GraphQL-CSRF header (the ops app does)');
  return ctx.browser;
}

/** As for members: each further password-hashing field of one operation takes one more unit of the budget. */
const hashingOperations = new WeakSet<GraphQLContext>();
async function chargeHashingField(ctx: GraphQLContext): Promise<void> {
  if (hashingOperations.has(ctx)) await ctx.services.frontDoor.admit(ctx.caller);
  hashingOperations.add(ctx);
}

builder.queryFields((t) => ({
  operatorMe: t.field({
    type: OperatorCallerRef,
    description: 'The signed-in operator (operator session only).',
    authScopes: { operator: 'read' },
    resolve: (_r, _a, ctx) => ctx.operator!.operator,
  }),
  adminOperators: t.field({
    type: [OperatorRef],
    authScopes: adminScopes('adminOperators'),
    resolve: (_r, _a, ctx) => ctx.services.operators.listOperators(),
  }),
  adminAuditLog: t.field({
    type: AuditPageRef,
    description: 'Newest first. actor: an operator id, or admin_token / cli. from inclusive, to exclusive.',
    authScopes: adminScopes('adminAuditLog'),
    args: {
      actor: t.arg.string(),
      action: t.arg.string(),
      targetType: t.arg({ type: AuditTargetTypeEnum }),
      targetId: t.arg.id(),
      from: t.arg({ type: 'DateTime' }),
      to: t.arg({ type: 'DateTime' }),
      first: t.arg.int(),
      after: t.arg.string(),
    },
    resolve: (_r, args, ctx) =>
      ctx.services.audit.list({
        input: Object.fromEntries(Object.entries(Object.assign({}, args, { targetId: args.targetId == null ? null : String(args.targetId) })).filter(([, v]) => v !== null && v !== undefined)),
      }),
  }),
}));

builder.mutationFields((t) => ({
  operatorSignIn: t.field({
    type: OperatorSignedInRef,
    description: 'Email and password → the operator session cookie (exd_ops_session; HttpOnly, SameSite=Lax). Any wrong part is the same INVALID_CREDENTIALS.',
    errors: {},
    args: { input: t.arg({ type: OperatorSignInInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const browser = browserOf(ctx);
      await chargeHashingField(ctx);
      const signedIn = await ctx.services.frontDoor.operatorLogIn({ address: ctx.caller.address, input: commandOf(operatorLoginCommandSchema, { ...input }) });
      if (browser.operatorSessionId) await ctx.services.operators.logOut({ sessionId: browser.operatorSessionId });
      browser.setOperatorSession({ sessionId: signedIn.sessionId, expiresAt: signedIn.expiresAt });
      return signedIn;
    },
  }),
  operatorSignOut: t.field({
    type: 'Boolean',
    description: 'Ends the operator session of the cookie and clears it (true even when there was none).',
    errors: {},
    resolve: async (_r, _a, ctx) => {
      const browser = browserOf(ctx);
      await ctx.services.operators.logOut({ sessionId: browser.operatorSessionId });
      browser.setOperatorSession(null);
      return true;
    },
  }),
  operatorSetPassword: t.field({
    type: OperatorPasswordSetRef,
    description: "Uses an operator's set-password link token once; the operator's other sessions end.",
    errors: {},
    args: { input: t.arg({ type: OperatorSetPasswordInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      await chargeHashingField(ctx);
      return ctx.services.operators.setPassword({ input: commandOf(operatorSetPasswordCommandSchema, { ...input }) });
    },
  }),
  adminInviteOperator: t.field({
    type: OperatorInvitationRef,
    authScopes: adminScopes('adminInviteOperator'),
    errors: {},
    args: { email: t.arg.string({ required: true }), role: t.arg({ type: OperatorRoleEnum, required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).inviteOperator({ input: { email: args.email, role: args.role } }),
  }),
  adminResetOperatorPassword: t.field({
    type: OperatorInvitationRef,
    authScopes: adminScopes('adminResetOperatorPassword'),
    errors: {},
    args: { email: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).resetOperatorPassword({ input: { email: args.email } }),
  }),
  adminSetOperatorStatus: t.field({
    type: OperatorRef,
    description: 'Disabling ends the operator’s sessions at once.',
    authScopes: adminScopes('adminSetOperatorStatus'),
    errors: {},
    args: { operatorId: t.arg.id({ required: true }), status: t.arg({ type: OperatorSettableStatusEnum, required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).setOperatorStatus({ input: { operatorId: String(args.operatorId), status: args.status } }),
  }),
  adminSetOperatorRole: t.field({
    type: OperatorRef,
    description: 'The operator is signed out, so the new role applies from its next sign-in.',
    authScopes: adminScopes('adminSetOperatorRole'),
    errors: {},
    args: { operatorId: t.arg.id({ required: true }), role: t.arg({ type: OperatorRoleEnum, required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).setOperatorRole({ input: { operatorId: String(args.operatorId), role: args.role } }),
  }),
  adminAddNote: t.field({
    type: AuditEntryRef,
    description: 'A note on a merchant, courier, order…: an audit entry (action note.add) listed with the target’s history.',
    authScopes: adminScopes('adminAddNote'),
    errors: {},
    args: { targetType: t.arg({ type: AuditTargetTypeEnum, required: true }), targetId: t.arg.id({ required: true }), text: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).addNote({ input: { targetType: args.targetType, targetId: String(args.targetId), text: args.text } }),
  }),
}));
