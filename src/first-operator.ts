import type { Container } from './container.js';
import { nodeOwnerId } from './reconciler-runner.js';

/** One node at a time issues the link: two nodes starting together would otherwise replace each other's. */
const FIRST_OPERATOR_LEASE = 'first-operator-link';

/**
 * Issue #38 item 1, in without a terminal: while no operator has set a password, each start issues
 * a one-time set-up link for the first admin (FIRST_OPERATOR_EMAIL) and prints it once — one log
 * line, and in development a banner on the terminal. Only the link's hash is stored (the operator
 * service's links); a later start issues a new one and the older stops working. Audited as the CLI:
 * whoever starts the server holds the terminal.
 */
export async function announceFirstOperatorLink(container: Container): Promise<string | null> {
  const { config, services, store, logger } = container;
  const email = config.firstOperatorEmail;
  if (!(await services.operators.needsFirstOperator({ email }))) return null;
  const owner = nodeOwnerId();
  if (!(await store.leases.acquire({ name: FIRST_OPERATOR_LEASE, owner, ttlMs: 60_000 }))) return null;
  const invitation = await services.auditedAdmin.as({ kind: 'cli' }).inviteOperator({ input: { email, role: 'admin' } }).finally(() => store.leases.release({ name: FIRST_OPERATOR_LEASE, owner }));
  logger.info({ setUpUrl: invitation.setPasswordUrl, email, expiresAt: invitation.expiresAt }, 'no operator yet: open the set-up link to choose the first admin password, then sign in to /ops');
  if (!config.production) {
    process.stdout.write(`\nFirst operator set-up (works once, until ${invitation.expiresAt}):\n  ${invitation.setPasswordUrl}\n  then sign in at ${config.publicBaseUrl}/ops as ${email}\n\n`);
  }
  return invitation.setPasswordUrl;
}
