import { z } from 'zod';
import { MEMBER_ROLES } from '../types.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.js';

/** Emails are compared trimmed and in lower case (one address, one member per merchant). */
export const memberEmailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email('must be an email address'));

const idSchema = z.string().trim().min(1).max(64);

export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`);

export const inviteMemberCommandSchema = z.strictObject({ email: memberEmailSchema, role: z.enum(MEMBER_ROLES) });
export type InviteMemberCommand = z.output<typeof inviteMemberCommandSchema>;

export const adminInviteMemberCommandSchema = z.strictObject({ merchantId: idSchema, email: memberEmailSchema, role: z.enum(MEMBER_ROLES) });
export const adminResetPasswordCommandSchema = z.strictObject({ merchantId: idSchema, email: memberEmailSchema });

export const setPasswordCommandSchema = z.strictObject({ token: z.string().min(1).max(200), password: passwordSchema });
export type SetPasswordCommand = z.output<typeof setPasswordCommandSchema>;

/**
 * Email and password (issue #28): one person may belong to several merchants, and the sign-in
 * finds every membership the password opens. `merchantId` (the sign-in before issue #28, still
 * accepted) names the one merchant to sign into. The password is not length-checked here beyond the
 * bound: a wrong one is the same generic refusal as any other.
 */
export const loginCommandSchema = z.strictObject({
  merchantId: idSchema.optional(),
  email: z.string().trim().toLowerCase().min(1).max(254),
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
});
export type LoginCommand = z.output<typeof loginCommandSchema>;

export const changeMemberRoleCommandSchema = z.strictObject({ memberId: idSchema, role: z.enum(MEMBER_ROLES) });
export type ChangeMemberRoleCommand = z.output<typeof changeMemberRoleCommandSchema>;
