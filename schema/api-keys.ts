import { keyModeSchema, rotateApiSecretCommandSchema } from '../src/domain/merchant-credentials.js';
import type { ApiKeyRecord, Mode } from '../src/domain/types.js';
import { builder } from './builder.js';
import { commandOf } from './commands.js';
import { merchantOf, ModeEnum } from './merchants.js';
import { parseInput } from '../src/domain/validation.js';

const ApiKeyRef = builder.objectRef<ApiKeyRecord>('ApiKey').implement({
  description: 'An API key as stored: its display prefix, never the key.',
  fields: (t) => ({
    id: t.exposeID('id'),
    mode: t.field({ type: ModeEnum, resolve: (k) => k.mode }),
    prefix: t.exposeString('prefix'),
    status: t.exposeString('status'),
    createdAt: t.field({ type: 'DateTime', resolve: (k) => k.createdAt }),
    revokedAt: t.field({ type: 'DateTime', nullable: true, resolve: (k) => k.revokedAt }),
  }),
});

const NewApiKeyRef = builder.objectRef<{ mode: Mode; apiKey: string; revoked: number }>('NewApiKey').implement({
  description: 'The new key is shown once.',
  fields: (t) => ({ mode: t.field({ type: ModeEnum, resolve: (r) => r.mode }), apiKey: t.exposeString('apiKey'), revoked: t.exposeInt('revoked') }),
});

const NewApiSecretRef = builder.objectRef<{ apiSecret: string; previousExpiresAt: string }>('NewApiSecret').implement({
  description: 'The new signing secret is shown once; the previous one keeps signing until previousExpiresAt.',
  fields: (t) => ({ apiSecret: t.exposeString('apiSecret'), previousExpiresAt: t.field({ type: 'DateTime', resolve: (r) => r.previousExpiresAt }) }),
});

builder.queryFields((t) => ({
  apiKeys: t.field({
    type: [ApiKeyRef],
    description: "The merchant's API keys of both modes (prefixes only), oldest first.",
    authScopes: { merchant: true },
    resolve: (_r, _a, ctx) => ctx.services.merchantCredentials.listApiKeys({ principal: merchantOf(ctx, 'settings') }),
  }),
}));

builder.mutationFields((t) => ({
  rotateApiKey: t.field({
    type: NewApiKeyRef,
    description: 'Owner only: a new key for the mode; its previous keys stop working at once.',
    authScopes: { merchant: true },
    errors: {},
    args: { mode: t.arg({ type: ModeEnum, required: true }) },
    resolve: (_r, args, ctx) => ctx.services.merchantCredentials.rotateApiKey({ principal: merchantOf(ctx, 'settings'), mode: parseInput(keyModeSchema, args.mode) }),
  }),
  revokeApiKeys: t.field({
    type: 'Int',
    description: "Owner only: revokes the mode's keys at once; answers how many.",
    authScopes: { merchant: true },
    errors: {},
    args: { mode: t.arg({ type: ModeEnum, required: true }) },
    resolve: async (_r, args, ctx) =>
      (await ctx.services.merchantCredentials.revokeApiKeys({ principal: merchantOf(ctx, 'settings'), mode: parseInput(keyModeSchema, args.mode) })).revoked,
  }),
  rotateApiSecret: t.field({
    type: NewApiSecretRef,
    description: 'Owner only: a new webhook signing secret; the previous one keeps signing for overlapHours (default 24, at most 168).',
    authScopes: { merchant: true },
    errors: {},
    args: { overlapHours: t.arg.float() },
    resolve: (_r, args, ctx) =>
      ctx.services.merchantCredentials.rotateApiSecret({ principal: merchantOf(ctx, 'settings'), input: commandOf(rotateApiSecretCommandSchema, { overlapHours: args.overlapHours }) }),
  }),
}));
