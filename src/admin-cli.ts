/**
 * Admin CLI: `npm run --silent admin -- <command> [options] --json`.
 * stdout carries exactly one JSON object (the result or the error); logs go to stderr. It opens the
 * same store as the server (DATA_DIR / MONGODB_URL), so it works while the server runs.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CodClaim } from './domain/cod.js';
import { BackupRefusedError, backupSqliteStore } from './adapters/sqlite/backup.js';
import { vacuumSqliteStore } from './adapters/sqlite/space.js';
import { readPublicAddress } from './adapters/public-address.js';
import { DamagedStoreError } from './adapters/sqlite/integrity.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { buildContainer, type Container } from './container.js';
import type { AuditedAdmin } from './domain/operators/audited-admin.js';
import { AppError, isAppError, presentError, type FieldError } from './domain/errors.js';
import type { IntegrationStatus, Merchant, MerchantStatus, Operator } from './domain/types.js';
import type { OperatorInvitation } from './domain/operators/service.js';
import { createLogger, type Logger } from './logger.js';

type Values = Record<string, string | undefined>;
type Output = Record<string, unknown>;

interface Command {
  args: string;
  summary: string;
  options: string[];
  /** `admin`: the admin operations as the CLI, each recorded in the audit log (actor `cli`). */
  run?(admin: AuditedAdmin, values: Values, config: Config, services: Container['services']): Promise<Output>;
  /** Works on the store's files without opening the service (no migrations, no start-up checks). */
  runOnFiles?(values: Values, config: Config): Promise<Output>;
}

const USAGE = 'npm run --silent admin -- <command> [options] --json';

const setStatus = (status: MerchantStatus, summary: string): Command => ({
  args: '--merchant M',
  summary,
  options: ['merchant'],
  run: async (admin, v) => {
    const merchant = await admin.setMerchantStatus({ input: { merchantId: v.merchant, status } });
    return { merchant_id: merchant.id, status: merchant.status };
  },
});

const setIntegration = (status: IntegrationStatus, summary: string): Command => ({
  args: '--merchant M --integration plugin|storefront|erp',
  summary,
  options: ['merchant', 'integration'],
  run: async (admin, v) => {
    const input = { merchantId: v.merchant, integration: v.integration, status };
    const merchant = await admin.setIntegrationStatus({ input });
    return { merchant_id: merchant.id, integration: v.integration, status: merchant.integrations[v.integration as keyof Merchant['integrations']] };
  },
});

const COMMANDS: Record<string, Command> = {
  backup: {
    args: '--out DIR',
    summary: 'Embedded mode: a consistent copy of the live store (database and master.key) into DIR, while the server serves; DIR is then a complete DATA_DIR',
    options: ['out'],
    runOnFiles: async (v, config) => {
      if (config.storeKind === 'mongodb') throw new AppError('VALIDATION_ERROR', 'backup copies the embedded store; in distributed mode back up MongoDB with mongodump --oplog (docs/operations.md "Backups and restore")');
      if (!v.out) throw invalidOption('out', 'is required: the directory to write the copy into');
      const copy = backupOrRefuse({ dataDir: config.dataDir, outDir: resolve(v.out), keyInDataDir: !config.masterKey });
      return {
        file: copy.file,
        bytes: copy.bytes,
        orders: copy.orders,
        duration_ms: copy.durationMs,
        master_key: copy.keyFile ?? 'not copied: the store is encrypted under MASTER_KEY; the copy opens only with that value',
        restore: `Stop the server, put the files of ${resolve(v.out)} in an empty DATA_DIR (or point DATA_DIR at a copy of that directory), start`,
      };
    },
  },
  'db:vacuum': {
    args: '',
    summary: 'Embedded mode, server stopped: rebuilds the store file once so that the space retention frees goes back to the filesystem (auto_vacuum = INCREMENTAL); needs free disk of about twice the file',
    options: [],
    runOnFiles: async (_v, config) => {
      if (config.storeKind === 'mongodb') throw new AppError('VALIDATION_ERROR', 'db:vacuum rebuilds the embedded store; MongoDB gives freed space back by itself');
      const vacuum = vacuumSqliteStore({ dataDir: config.dataDir });
      return { bytes_before: vacuum.bytesBefore, bytes_after: vacuum.bytesAfter, auto_vacuum: vacuum.autoVacuum, duration_ms: vacuum.durationMs };
    },
  },
  'merchant:create': {
    args: '--name N [--address A]',
    summary: 'Create a merchant; prints its live key, test key and API secret once',
    options: ['name', 'address'],
    run: async (admin, v) => snakeKeys(await admin.createMerchant({ input: { name: v.name, address: v.address } })),
  },
  'merchant:list': {
    args: '[--limit N] [--after ID]',
    summary: 'List merchants by id (no credentials); page with --after <next_after>',
    options: ['limit', 'after'],
    run: async (admin, v, config) => {
      const limit = v.limit === undefined ? 50 : wholeNumber('limit', v.limit, { min: 1, max: 200 });
      const merchants = await admin.listMerchants({ limit, ...(v.after && { afterId: v.after }) });
      return {
        merchants: merchants.map((m) => presentMerchant(m, config)),
        next_after: merchants.length === limit ? merchants.at(-1)!.id : null,
      };
    },
  },
  'key:rotate': {
    args: '--merchant M --mode live|test',
    summary: 'Issue a new API key for the mode and revoke the previous ones',
    options: ['merchant', 'mode'],
    run: async (admin, v) => snakeKeys(await admin.rotateApiKey({ input: { merchantId: v.merchant, mode: v.mode } })),
  },
  'key:revoke': {
    args: '--merchant M --mode live|test',
    summary: 'Revoke every active API key of the mode (effective immediately)',
    options: ['merchant', 'mode'],
    run: async (admin, v) => snakeKeys(await admin.revokeApiKeys({ input: { merchantId: v.merchant, mode: v.mode } })),
  },
  'secret:rotate': {
    args: '--merchant M [--overlap-hours H]',
    summary: 'Issue a new API secret; the previous one keeps signing for H hours (default 24)',
    options: ['merchant', 'overlap-hours'],
    run: async (admin, v) =>
      snakeKeys(await admin.rotateApiSecret({ input: { merchantId: v.merchant, overlapHours: numberOption('overlap-hours', v['overlap-hours'], 'decimal') } })),
  },
  'merchant:suspend': setStatus('suspended', 'Suspend a merchant: only GET /merchants/me keeps working'),
  'merchant:activate': setStatus('active', 'Activate (approve) a merchant'),
  'merchant:review': setStatus('in_review', 'Put a merchant in review: sandbox only, no live operations'),
  'merchant:rate-limit': {
    args: '--merchant M --per-min N|default',
    summary: "Set the merchant's per-key request limit, or go back to the configured default",
    options: ['merchant', 'per-min'],
    run: async (admin, v, config) => {
      const perMin = v['per-min'] === 'default' ? null : numberOption('per-min', v['per-min'], 'whole');
      const merchant = await admin.setMerchantRateLimit({ input: { merchantId: v.merchant, perMin } });
      return {
        merchant_id: merchant.id,
        rate_limit_per_min: merchant.rateLimitPerMin ?? config.rateLimitPerMin,
        uses_default: merchant.rateLimitPerMin === null,
      };
    },
  },
  'merchant:notification-countries': {
    args: '--merchant M --countries 56,54|default|none',
    summary: "Set the country calling codes the merchant's live SMS and WhatsApp may reach (default: Chile, 56, alone)",
    options: ['merchant', 'countries'],
    run: async (admin, v) => {
      const given = v.countries ?? '';
      const countries = given === 'default' ? null : given === 'none' ? [] : given.split(',').map((c) => c.trim()).filter((c) => c !== '');
      const merchant = await admin.setNotificationCountries({ input: { merchantId: v.merchant, countries } });
      return { merchant_id: merchant.id, notification_countries: merchant.settings.notificationCountries ?? ['56'] };
    },
  },
  'integration:approve': setIntegration('approved', 'Approve one integration of a merchant'),
  'integration:reject': setIntegration('rejected', 'Reject one integration of a merchant'),
  'courier:create': {
    args: '--name N --phone P --vehicle bike|motorcycle|car|van --plate X [--mode test|live]',
    summary: "Create a courier (default mode live); prints its token and the courier app's one-time sign-in link once",
    options: ['name', 'phone', 'vehicle', 'plate', 'mode'],
    run: async (admin, v) =>
      snakeKeys(await admin.createCourier({ input: { name: v.name, phone: v.phone, vehicle: v.vehicle, plate: v.plate, mode: v.mode } })),
  },
  'courier:invite': {
    args: '--courier C',
    summary: "Issue a new one-time sign-in link for the courier app (printed once); the courier's older unused links stop working",
    options: ['courier'],
    run: async (admin, v) => snakeKeys(await admin.inviteCourier({ input: { courierId: v.courier } })),
  },
  'courier:rotate-token': {
    args: '--courier C',
    summary: 'Issue a new courier token (printed once); the old one stops working at once',
    options: ['courier'],
    run: async (admin, v) => snakeKeys(await admin.rotateCourierToken({ input: { courierId: v.courier } })),
  },
  'courier:disable': {
    args: '--courier C',
    summary: 'Disable a courier: its token stops working, it leaves dispatch and its assigned orders are dispatched again',
    options: ['courier'],
    run: async (admin, v) => snakeKeys(await admin.disableCourier({ input: { courierId: v.courier } })),
  },
  'courier:enable': {
    args: '--courier C',
    summary: 'Enable a disabled courier again (with its current token)',
    options: ['courier'],
    run: async (admin, v) => snakeKeys(await admin.enableCourier({ input: { courierId: v.courier } })),
  },
  'cod:settle': {
    args: '(--courier C | --merchant M) --amount N --idempotency-key K',
    summary: 'Cash on delivery: record cash a live courier handed over (covers its oldest claims), or a payout to a merchant (at most the cash handed over for it minus paid out); K: the same key records once',
    options: ['courier', 'merchant', 'amount', 'idempotency-key'],
    run: async (admin, v) => {
      if ((v.courier === undefined) === (v.merchant === undefined)) throw invalidOption('courier', 'give exactly one of --courier and --merchant');
      const amount = wholeNumber('amount', v.amount ?? '', { min: 1, max: 100_000_000 });
      const idempotencyKey = v['idempotency-key'];
      if (v.courier !== undefined) {
        const handOver = await admin.recordCodHandOver({ input: { courierId: v.courier, amount }, idempotencyKey });
        return { courier_id: handOver.courierId, amount: handOver.amount, at: handOver.at, lines: handOver.lines.map((l) => ({ ledger_entry_id: l.id, booking_id: l.orderId, merchant_id: l.merchantId, amount: l.amount })) };
      }
      const payout = await admin.recordCodPayout({ input: { merchantId: v.merchant, amount }, idempotencyKey });
      return { ledger_entry_id: payout.id, merchant_id: payout.merchantId, amount: payout.amount, at: payout.at };
    },
  },
  'cod:confirm': {
    args: '--claim L',
    summary: 'Cash on delivery: confirm a claim waiting for confirmation (far above its order\'s amount): it counts from now on',
    options: ['claim'],
    run: async (admin, v) => presentClaim(await admin.resolveCodClaim({ input: { claimId: v.claim, decision: 'confirm' } })),
  },
  'cod:reject': {
    args: '--claim L',
    summary: 'Cash on delivery: reject a claim waiting for confirmation: it never counts',
    options: ['claim'],
    run: async (admin, v) => presentClaim(await admin.resolveCodClaim({ input: { claimId: v.claim, decision: 'reject' } })),
  },
  'user:invite': {
    args: '--merchant M --email E --role owner|dispatcher|viewer',
    summary: 'Invite a team member to the console; prints a one-time set-password link (valid MEMBER_INVITATION_TTL_HOURS)',
    options: ['merchant', 'email', 'role'],
    run: async (admin, v) => {
      const invitation = await admin.inviteMember({ input: { merchantId: v.merchant, email: v.email, role: v.role } });
      const { member } = invitation;
      return {
        member_id: member.id, merchant_id: member.merchantId, email: member.email, role: member.role, status: member.status,
        set_password_url: invitation.setPasswordUrl, expires_at: invitation.expiresAt,
      };
    },
  },
  'user:reset-password': {
    args: '--merchant M --email E',
    summary: 'A new one-time set-password link for a member who forgot the password (the old one works until the link is used)',
    options: ['merchant', 'email'],
    run: async (admin, v) => {
      const invitation = await admin.resetMemberPassword({ input: { merchantId: v.merchant, email: v.email } });
      return { member_id: invitation.member.id, email: invitation.member.email, set_password_url: invitation.setPasswordUrl, expires_at: invitation.expiresAt };
    },
  },
  'operator:invite': {
    args: '--email E --role admin|dispatcher|support',
    summary: 'Invite an operator to /ops; prints a one-time set-password link (valid MEMBER_INVITATION_TTL_HOURS)',
    options: ['email', 'role'],
    run: async (admin, v) => presentOperatorInvitation(await admin.inviteOperator({ input: { email: v.email, role: v.role } })),
  },
  'operator:reset-password': {
    args: '--email E',
    summary: 'A new one-time set-password link for an operator who forgot the password (the old one works until the link is used)',
    options: ['email'],
    run: async (admin, v) => presentOperatorInvitation(await admin.resetOperatorPassword({ input: { email: v.email } })),
  },
  'operator:list': {
    args: '',
    summary: 'List operators (id, email, role, status)',
    options: [],
    run: async (_admin, _v, _config, services) => ({ operators: (await services.operators.listOperators()).map((o) => ({ id: o.id, email: o.email, role: o.role, status: o.status, created_at: o.createdAt })) }),
  },
  'operator:disable': {
    args: '--operator O',
    summary: "Disable an operator: its sessions end at once and it cannot sign in",
    options: ['operator'],
    run: async (admin, v) => presentOperator(await admin.setOperatorStatus({ input: { operatorId: v.operator, status: 'disabled' } })),
  },
  'operator:enable': {
    args: '--operator O',
    summary: 'Enable a disabled operator again',
    options: ['operator'],
    run: async (admin, v) => presentOperator(await admin.setOperatorStatus({ input: { operatorId: v.operator, status: 'active' } })),
  },
  'operator:set-role': {
    args: '--operator O --role admin|dispatcher|support',
    summary: "Change an operator's role; its sessions end so the role applies from its next sign-in",
    options: ['operator', 'role'],
    run: async (admin, v) => presentOperator(await admin.setOperatorRole({ input: { operatorId: v.operator, role: v.role } })),
  },
  'user:create': {
    args: '--rut R [--name N] [--phone P]',
    summary: 'Register an end user by Chilean RUT',
    options: ['rut', 'name', 'phone'],
    run: async (admin, v) => snakeKeys(await admin.createUser({ input: { rut: v.rut, name: v.name, phone: v.phone } })),
  },
};

function presentOperator(o: Operator): Output {
  return { operator_id: o.id, email: o.email, role: o.role, status: o.status };
}

function presentOperatorInvitation(invitation: OperatorInvitation): Output {
  return Object.assign(presentOperator(invitation.operator), { set_password_url: invitation.setPasswordUrl, expires_at: invitation.expiresAt });
}

function backupOrRefuse(options: Parameters<typeof backupSqliteStore>[0]) {
  try {
    return backupSqliteStore(options);
  } catch (error) {
    if (error instanceof BackupRefusedError) throw new AppError('VALIDATION_ERROR', error.message);
    throw error;
  }
}

/** The CLI option that carries each domain input field, for error messages. */
const OPTION_OF_FIELD: Record<string, string> = { merchantId: 'merchant', courierId: 'courier', claimId: 'claim', operatorId: 'operator', perMin: 'per-min', overlapHours: 'overlap-hours' };

function usageText(name?: string): string {
  const lines = Object.entries(COMMANDS)
    .filter(([n]) => !name || n === name)
    .map(([n, c]) => `  ${n} ${c.args}`);
  return `Usage: ${USAGE}\n${lines.join('\n')}`;
}

function helpOutput(name?: string): Output {
  const commands = Object.fromEntries(
    Object.entries(COMMANDS)
      .filter(([n]) => !name || n === name)
      .map(([n, c]) => [n, { options: c.args, description: c.summary }]),
  );
  return { success: true, usage: USAGE, commands };
}

function presentClaim(c: CodClaim): Output {
  return { claim_id: c.id, booking_id: c.orderId, merchant_id: c.merchantId, courier_id: c.courierId, expected: c.expected, collected: c.collected, status: c.status, collected_at: c.collectedAt };
}

function snakeKeys(record: object): Output {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
}

function presentMerchant(m: Merchant, config: Config): Output {
  return {
    id: m.id,
    name: m.name,
    status: m.status,
    address: m.address,
    integrations: { ...m.integrations },
    rate_limit_per_min: m.rateLimitPerMin ?? config.rateLimitPerMin,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

function invalidOption(option: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', `--${option} ${message}`, { fields: [{ field: option, message }] });
}

/** A numeric option as a number; the domain schema checks its range. */
function numberOption(option: string, value: string | undefined, kind: 'whole' | 'decimal'): number | undefined {
  if (value === undefined) return undefined;
  const pattern = kind === 'whole' ? /^\d+$/ : /^\d+(\.\d+)?$/;
  if (!pattern.test(value.trim())) throw invalidOption(option, kind === 'whole' ? 'must be a whole number' : 'must be a number');
  return Number(value);
}

function wholeNumber(option: string, value: string, range: { min: number; max: number }): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < range.min || n > range.max) {
    throw invalidOption(option, `must be a whole number from ${range.min} to ${range.max}`);
  }
  return n;
}

/** Re-labels domain validation errors with the CLI's option names and appends the command's usage. */
function forCli(error: AppError, name: string): AppError {
  if (error.code !== 'VALIDATION_ERROR') return error;
  const fields: FieldError[] = (error.fields ?? []).map((f) => {
    const [head = '', ...rest] = f.field.split('.');
    const option = OPTION_OF_FIELD[head] ?? head.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    return { field: [option, ...rest].join('.'), message: f.message };
  });
  const described = fields.length ? `Invalid options: ${fields.map((f) => `--${f.field} ${f.message}`).join('; ')}` : error.message;
  return new AppError('VALIDATION_ERROR', `${described}\n${usageText(name)}`, { ...(fields.length && { fields }) });
}

function badUsage(message: string, name?: string): AppError {
  return new AppError('VALIDATION_ERROR', `${message}\n${usageText(name)}`);
}

/** Set once the configuration is loaded; errors after that point are logged through it. */
let logger: Logger | undefined;

async function run(argv: string[]): Promise<Output> {
  const args = [...argv];
  let help = false;
  // Global flags may also come before the command.
  while (['--json', '--help', '-h'].includes(args[0] ?? '')) if (args.shift() !== '--json') help = true;
  const name = args.shift();
  if (name === undefined) {
    if (help) return helpOutput();
    throw badUsage('Missing command');
  }
  const command = COMMANDS[name];
  if (!command) throw badUsage(`Unknown command "${name}"`);

  let values: Values & { help?: boolean };
  try {
    const options = Object.fromEntries(command.options.map((o) => [o, { type: 'string' as const }]));
    const parsed = parseArgs({
      args,
      options: Object.assign({}, options, { json: { type: 'boolean' as const }, help: { type: 'boolean' as const, short: 'h' } }),
      strict: true,
      allowPositionals: false,
    });
    values = parsed.values as Values & { help?: boolean };
  } catch (error) {
    throw badUsage(error instanceof Error ? error.message : String(error), name);
  }
  if (help || values.help) return helpOutput(name);

  const config = loadConfig();
  // Links use the service's public address: PUBLIC_BASE_URL, else what the running server recorded (never a guessed port).
  if (!config.publicBaseUrlGiven) config.publicBaseUrl = readPublicAddress(config.dataDir) ?? config.publicBaseUrl;
  logger = createLogger({ level: config.logLevel, destination: 2 });
  if (command.runOnFiles) {
    try {
      const output = await command.runOnFiles(values, config);
      logger.info({ command: name }, 'admin command completed');
      return { success: true, ...output };
    } catch (error) {
      if (!isAppError(error)) throw error;
      logger.warn({ command: name, code: error.code }, 'admin command failed');
      throw forCli(error, name);
    }
  }
  const container: Container = await buildContainer(config, { logger });
  try {
    const output = await command.run!(container.services.auditedAdmin.as({ kind: 'cli' }), values, config, container.services);
    container.logger.info({ command: name, merchant_id: values.merchant ?? output.merchant_id, courier_id: values.courier ?? output.courier_id }, 'admin command completed');
    return { success: true, ...output };
  } catch (error) {
    if (!isAppError(error)) throw error;
    container.logger.warn({ command: name, code: error.code }, 'admin command failed');
    throw forCli(error, name);
  } finally {
    await container.close();
  }
}

async function main(): Promise<void> {
  let output: Output;
  try {
    output = await run(process.argv.slice(2));
  } catch (error) {
    let appError: AppError;
    if (isAppError(error)) appError = error;
    else if (error instanceof ConfigError) appError = new AppError('VALIDATION_ERROR', error.message);
    else if (error instanceof DamagedStoreError) appError = new AppError('SERVICE_UNAVAILABLE', error.message);
    else {
      appError = new AppError('INTERNAL_ERROR', error instanceof Error ? error.message : String(error));
      if (logger) logger.error({ err: error }, 'admin command crashed');
      else console.error(error);
    }
    output = presentError(appError);
    process.exitCode = 1;
  }
  // A pipe or file on stdout is written synchronously; the process then ends on its own, after
  // the asynchronous stderr logger has flushed.
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

void main();
