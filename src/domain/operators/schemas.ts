import { z } from 'zod';
import { AUDIT_TARGET_TYPES, OPERATOR_ROLES } from '../types.js';
import { memberEmailSchema, passwordSchema } from '../members/schemas.js';
import { PASSWORD_MAX_LENGTH } from '../members/passwords.js';

const idSchema = z.string().trim().min(1).max(64);

export const inviteOperatorCommandSchema = z.strictObject({ email: memberEmailSchema, role: z.enum(OPERATOR_ROLES) });
export const operatorEmailCommandSchema = z.strictObject({ email: memberEmailSchema });
export const setOperatorStatusCommandSchema = z.strictObject({ operatorId: idSchema, status: z.enum(['active', 'disabled']) });
export const setOperatorRoleCommandSchema = z.strictObject({ operatorId: idSchema, role: z.enum(OPERATOR_ROLES) });
export const operatorSetPasswordCommandSchema = z.strictObject({ token: z.string().min(1).max(200), password: passwordSchema });
export type OperatorSetPasswordCommand = z.output<typeof operatorSetPasswordCommandSchema>;

/** Like a member's sign-in without the merchant: a wrong password is the same generic refusal as any other. */
export const operatorLoginCommandSchema = z.strictObject({
  email: z.string().trim().toLowerCase().min(1).max(254),
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
});
export type OperatorLoginCommand = z.output<typeof operatorLoginCommandSchema>;

export const NOTE_MAX_LENGTH = 2000;
export const addNoteCommandSchema = z.strictObject({
  targetType: z.enum(AUDIT_TARGET_TYPES),
  targetId: idSchema,
  text: z.string().trim().min(1).max(NOTE_MAX_LENGTH),
});

const instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s).toISOString());
export const AUDIT_PAGE_MAX = 200;
export const listAuditCommandSchema = z.strictObject({
  actor: z.string().trim().min(1).max(64).optional(),
  action: z.string().trim().min(1).max(64).optional(),
  targetType: z.enum(AUDIT_TARGET_TYPES).optional(),
  targetId: idSchema.optional(),
  from: instant.optional(),
  to: instant.optional(),
  first: z.number().int().min(1).max(AUDIT_PAGE_MAX).default(50),
  /** The previous page's `nextCursor` (an entry id). */
  after: z.string().regex(/^au_[0-9A-Za-z]{1,40}$/, 'must be a cursor from a previous page').optional(),
});
