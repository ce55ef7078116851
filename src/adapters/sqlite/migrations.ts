/**
 * Schema migrations, applied in order; PRAGMA user_version records how many have run.
 * Append only: never edit a migration that has shipped.
 */
export const MIGRATIONS: string[] = [
  `
  CREATE TABLE merchants (
    id TEXT PRIMARY KEY,
    doc TEXT NOT NULL
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id),
    mode TEXT NOT NULL CHECK (mode IN ('live','test')),
    hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active','revoked')),
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );
  CREATE INDEX api_keys_merchant ON api_keys (merchant_id, mode, status);
  CREATE TABLE merchant_secrets (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id),
    ciphertext TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT
  );
  CREATE INDEX merchant_secrets_merchant ON merchant_secrets (merchant_id, created_at);
  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    rut TEXT NOT NULL UNIQUE,
    name TEXT,
    phone TEXT,
    created_at TEXT NOT NULL
  );
  CREATE TABLE couriers (
    id TEXT PRIMARY KEY,
    mode TEXT NOT NULL CHECK (mode IN ('live','test')),
    token_hash TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,
    doc TEXT NOT NULL
  );
  CREATE INDEX couriers_mode ON couriers (mode, status);
  `,
  `
  ALTER TABLE merchants ADD COLUMN storefront_domain TEXT;
  UPDATE merchants SET storefront_domain = json_extract(doc, '$.settings.storefrontDomain');
  CREATE UNIQUE INDEX merchants_storefront_domain ON merchants (storefront_domain) WHERE storefront_domain IS NOT NULL;
  CREATE TABLE integration_telemetry (
    merchant_id TEXT NOT NULL REFERENCES merchants(id),
    mode TEXT NOT NULL CHECK (mode IN ('live','test')),
    integration TEXT NOT NULL,
    site TEXT NOT NULL DEFAULT '',
    plugin_version TEXT,
    user_agent TEXT,
    call_count INTEGER NOT NULL,
    first_seen_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    PRIMARY KEY (merchant_id, mode, integration, site)
  );
  `,
  `
  CREATE TABLE orders (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id),
    mode TEXT NOT NULL CHECK (mode IN ('live','test')),
    order_number TEXT NOT NULL UNIQUE,
    tracking_number TEXT NOT NULL UNIQUE,
    reference_id TEXT,
    ecommerce_order_id TEXT,
    status TEXT NOT NULL,
    courier_id TEXT,
    batch_id TEXT,
    vehicle_type TEXT NOT NULL,
    pickup_geohash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    doc TEXT NOT NULL
  );
  CREATE INDEX orders_merchant ON orders (merchant_id, mode, id);
  CREATE INDEX orders_reference ON orders (merchant_id, mode, reference_id);
  CREATE INDEX orders_ecommerce ON orders (merchant_id, mode, ecommerce_order_id);
  CREATE INDEX orders_queue ON orders (mode, status, created_at);
  CREATE INDEX orders_zone ON orders (merchant_id, mode, pickup_geohash);
  CREATE TABLE order_events (
    id TEXT PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders(id),
    sequence INTEGER NOT NULL,
    doc TEXT NOT NULL,
    UNIQUE (order_id, sequence)
  );
  CREATE TABLE idempotency_keys (
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    order_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (merchant_id, mode, key)
  );
  CREATE INDEX idempotency_expiry ON idempotency_keys (expires_at);
  CREATE TABLE batches (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id),
    mode TEXT NOT NULL,
    status TEXT NOT NULL,
    vehicle_type TEXT NOT NULL,
    created_at TEXT NOT NULL,
    doc TEXT NOT NULL
  );
  CREATE INDEX batches_merchant ON batches (merchant_id, mode, id);
  CREATE INDEX batches_pending ON batches (mode, status, created_at);
  CREATE TABLE ledger (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    order_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('charge','reversal')),
    amount INTEGER NOT NULL,
    at TEXT NOT NULL
  );
  CREATE INDEX ledger_merchant ON ledger (merchant_id, mode, at);
  `,
  `
  CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id),
    mode TEXT NOT NULL CHECK (mode IN ('live','test')),
    enabled INTEGER NOT NULL,
    doc TEXT NOT NULL
  );
  CREATE INDEX webhook_endpoints_merchant ON webhook_endpoints (merchant_id, mode, id);
  CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    endpoint_id TEXT NOT NULL,
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    status TEXT NOT NULL,
    next_attempt_at TEXT NOT NULL,
    lease_owner TEXT,
    lease_until TEXT,
    created_at TEXT NOT NULL,
    doc TEXT NOT NULL
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
  CREATE INDEX webhook_deliveries_merchant ON webhook_deliveries (merchant_id, mode, id);
  CREATE TABLE webhook_attempts (
    id TEXT PRIMARY KEY,
    delivery_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    doc TEXT NOT NULL
  );
  CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempt);
  `,
  `
  UPDATE couriers SET doc = json_set(doc, '$.accountStatus', 'active') WHERE json_extract(doc, '$.accountStatus') IS NULL;
  `,
  `
  CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    until_ms INTEGER NOT NULL
  );
  `,
  `
  CREATE TABLE merchant_storefront_secrets (
    merchant_id TEXT PRIMARY KEY REFERENCES merchants(id),
    ciphertext TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  `,
  `
  ALTER TABLE merchant_storefront_secrets ADD COLUMN previous_ciphertext TEXT;
  ALTER TABLE merchant_storefront_secrets ADD COLUMN previous_expires_at TEXT;
  `,
  `
  CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);
  CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (status, lease_until);
  `,
  `
  CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, status);
  `,
  `
  CREATE INDEX webhook_deliveries_due_merchant ON webhook_deliveries (status, merchant_id, next_attempt_at, id);
  `,
  `
  CREATE TABLE quotes (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL CHECK (mode IN ('live','test')),
    expires_at TEXT NOT NULL,
    doc TEXT NOT NULL
  );
  CREATE INDEX quotes_expiry ON quotes (expires_at);
  ALTER TABLE orders ADD COLUMN dispatch_after TEXT;
  `,
  `
  CREATE TABLE members (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id),
    email TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('owner','dispatcher','viewer')),
    status TEXT NOT NULL CHECK (status IN ('invited','active')),
    password_hash TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE UNIQUE INDEX members_email ON members (merchant_id, email);
  CREATE TABLE member_password_tokens (
    hash TEXT PRIMARY KEY,
    member_id TEXT NOT NULL,
    merchant_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
  );
  CREATE INDEX member_password_tokens_member ON member_password_tokens (member_id);
  CREATE TABLE member_sessions (
    hash TEXT PRIMARY KEY,
    member_id TEXT NOT NULL,
    merchant_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  );
  CREATE INDEX member_sessions_member ON member_sessions (member_id);
  CREATE INDEX member_sessions_expiry ON member_sessions (expires_at);
  `,
  `
  CREATE TABLE idempotent_writes (
    owner_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    operation TEXT NOT NULL,
    key TEXT NOT NULL,
    token TEXT NOT NULL,
    outcome TEXT,
    locked_until TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (owner_id, mode, operation, key)
  );
  CREATE INDEX idempotent_writes_expiry ON idempotent_writes (expires_at);
  CREATE TABLE event_feed (
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    position INTEGER NOT NULL,
    id TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (merchant_id, mode, position)
  );
  CREATE INDEX event_feed_created ON event_feed (created_at);
  CREATE TABLE event_feed_positions (
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    last INTEGER NOT NULL,
    PRIMARY KEY (merchant_id, mode)
  );
  `,
  `
  ALTER TABLE couriers ADD COLUMN location_lat REAL;
  ALTER TABLE couriers ADD COLUMN location_lng REAL;
  ALTER TABLE couriers ADD COLUMN location_at TEXT;
  `,
  `
  -- Every query path on an index (issue #15 item 8, test/adapters/sqlite-query-plans.test.ts): the
  -- queues in their exact order (created_at, then id) so a page of them needs no sort of every
  -- queued row; the old three-column indexes are prefixes of these. Expired set-password tokens
  -- are deleted by expiry.
  CREATE INDEX orders_queue_fifo ON orders (mode, status, created_at, id);
  DROP INDEX orders_queue;
  CREATE INDEX batches_pending_fifo ON batches (mode, status, created_at, id);
  DROP INDEX batches_pending;
  CREATE INDEX member_password_tokens_expiry ON member_password_tokens (expires_at);
  `,
  `
  -- An order without a reference id (or e-commerce order id) has no entry in that index: most
  -- orders have one of the two at most, and every index entry is written on each order creation
  -- (issue #18 item 4). Lookups by a reference (reference_id = ?) imply IS NOT NULL and keep the index.
  DROP INDEX orders_reference;
  CREATE INDEX orders_reference ON orders (merchant_id, mode, reference_id) WHERE reference_id IS NOT NULL;
  DROP INDEX orders_ecommerce;
  CREATE INDEX orders_ecommerce ON orders (merchant_id, mode, ecommerce_order_id) WHERE ecommerce_order_id IS NOT NULL;
  `,
  `
  -- Fewer B-trees written per order creation (issue #18 item 4): idempotency keys are stored in
  -- their primary key (WITHOUT ROWID: small rows); history events and feed events lose the index
  -- on their id, which nothing looks up (both are read by order or by position) and whose
  -- uniqueness the id source already gives (ULIDs).
  CREATE TABLE idempotency_keys_v2 (
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    order_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (merchant_id, mode, key)
  ) WITHOUT ROWID;
  INSERT INTO idempotency_keys_v2 SELECT merchant_id, mode, key, request_hash, order_id, created_at, expires_at FROM idempotency_keys;
  DROP TABLE idempotency_keys;
  ALTER TABLE idempotency_keys_v2 RENAME TO idempotency_keys;
  CREATE INDEX idempotency_expiry ON idempotency_keys (expires_at);
  CREATE TABLE order_events_v2 (
    id TEXT NOT NULL,
    order_id TEXT NOT NULL REFERENCES orders(id),
    sequence INTEGER NOT NULL,
    doc TEXT NOT NULL,
    UNIQUE (order_id, sequence)
  );
  INSERT INTO order_events_v2 SELECT id, order_id, sequence, doc FROM order_events;
  DROP TABLE order_events;
  ALTER TABLE order_events_v2 RENAME TO order_events;
  CREATE TABLE event_feed_v2 (
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    position INTEGER NOT NULL,
    id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (merchant_id, mode, position)
  );
  INSERT INTO event_feed_v2 SELECT merchant_id, mode, position, id, created_at, doc FROM event_feed;
  DROP TABLE event_feed;
  ALTER TABLE event_feed_v2 RENAME TO event_feed;
  CREATE INDEX event_feed_created ON event_feed (created_at);
  `,
  `
  -- Retention and the reconciler seek what they work on instead of walking past what is done
  -- (issue #25 item 2). events_pruned marks an order that is over whose events retention removed:
  -- the partial index holds only orders over with events left, so "what is prunable" is a seek
  -- and a handled order leaves it. Orders still new in a batch (few) have their own partial index.
  -- Neither costs order creation (a new order matches neither WHERE): entries are written when an
  -- order ends, or joins a batch.
  ALTER TABLE orders ADD COLUMN events_pruned INTEGER;
  CREATE INDEX orders_events_prunable ON orders (created_at, id) WHERE status IN ('completed', 'cancelled') AND events_pruned IS NULL;
  CREATE INDEX orders_new_in_batch ON orders (mode, created_at, id) WHERE status = 'new' AND batch_id IS NOT NULL;
  `,
  `
  -- A merchant's order list seeks whatever its filter (issue #25 item 1): newest first by
  -- (created_at, id), one seek per status merged in order (every status when none is asked), the
  -- date range and the keyset cursor as ranges of each. It replaces orders_merchant (merchant_id,
  -- mode, id), so an order creation writes as many B-trees as before.
  CREATE INDEX orders_merchant_status ON orders (merchant_id, mode, status, created_at, id);
  DROP INDEX orders_merchant;
  `,
  `
  -- Recipient notifications (issue #28 item 7): an outbox like webhook_deliveries. The primary key
  -- is the (order, moment, channel) dedupe key, so a moment reached twice writes one row; due rows
  -- are found by (status, next_attempt_at), a merchant's page by (merchant_id, mode, id), retention
  -- by created_at.
  CREATE TABLE notifications (
    dedupe TEXT PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    status TEXT NOT NULL,
    next_attempt_at TEXT,
    lease_until TEXT,
    created_at TEXT NOT NULL,
    doc TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX notifications_due ON notifications (status, next_attempt_at, id);
  CREATE INDEX notifications_merchant ON notifications (merchant_id, mode, id);
  CREATE INDEX notifications_created ON notifications (created_at);
  `,
  `
  -- Asymmetric webhook signatures (issue #31): each signing secret carries its Ed25519 private key
  -- (PKCS#8, sealed with the master key like the secret), rotated with it. Secrets made before get
  -- one on first use (setSigningKey). Webhook endpoints keep their \`signing\` in their JSON doc:
  -- an absent field reads as symmetric.
  ALTER TABLE merchant_secrets ADD COLUMN signing_key TEXT;
  `,
  `
  -- Operators (issue #29): the people who run the service, with their one-time set-password
  -- tokens and browser sessions (a member's shape without a merchant), and the audit log of every
  -- operator, admin-token and CLI action: listed newest first by id (time-ordered), filtered by
  -- actor, action or target on their own indexes, pruned by age.
  CREATE TABLE operators (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    status TEXT NOT NULL,
    password_hash TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE operator_password_tokens (
    hash TEXT PRIMARY KEY,
    operator_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
  );
  CREATE INDEX operator_password_tokens_operator ON operator_password_tokens (operator_id);
  CREATE INDEX operator_password_tokens_expiry ON operator_password_tokens (expires_at);
  CREATE TABLE operator_sessions (
    hash TEXT PRIMARY KEY,
    operator_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  );
  CREATE INDEX operator_sessions_operator ON operator_sessions (operator_id);
  CREATE INDEX operator_sessions_expiry ON operator_sessions (expires_at);
  CREATE TABLE audit_log (
    id TEXT PRIMARY KEY,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    actor_kind TEXT NOT NULL,
    actor_id TEXT,
    actor_email TEXT,
    action TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    before TEXT,
    after TEXT
  );
  CREATE INDEX audit_log_at ON audit_log (at);
  CREATE INDEX audit_log_actor ON audit_log (actor, id);
  CREATE INDEX audit_log_action ON audit_log (action, id);
  CREATE INDEX audit_log_target ON audit_log (target_type, target_id, id);
  `,
  `
  -- Couriers' one-time sign-in codes and their app's browser sessions (issue #27), by SHA-256.
  CREATE TABLE courier_sign_in_codes (
    hash TEXT PRIMARY KEY,
    courier_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
  );
  CREATE INDEX courier_sign_in_codes_courier ON courier_sign_in_codes (courier_id);
  CREATE INDEX courier_sign_in_codes_expiry ON courier_sign_in_codes (expires_at);
  CREATE TABLE courier_sessions (
    hash TEXT PRIMARY KEY,
    courier_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  );
  CREATE INDEX courier_sessions_courier ON courier_sessions (courier_id, created_at);
  CREATE INDEX courier_sessions_expiry ON courier_sessions (expires_at);
  `,
  `
  -- An email-only sign-in finds the person's memberships across merchants (issue #28).
  CREATE INDEX members_by_email ON members (email, created_at, id);
  `,
  `
  -- Returned and disposed orders are over too (issue #30 item 2): retention prunes their events.
  DROP INDEX orders_events_prunable;
  CREATE INDEX orders_events_prunable ON orders (created_at, id) WHERE status IN ('completed', 'cancelled', 'returned', 'disposed') AND events_pruned IS NULL;
  `,
  `
  -- Operators' failing webhook endpoints (issue #29): only the troubled ones are in this index.
  CREATE INDEX webhook_endpoints_troubled ON webhook_endpoints (merchant_id, id)
    WHERE json_extract(doc, '$.failingSince') IS NOT NULL OR (enabled = 0 AND json_extract(doc, '$.disabledReason') IS NOT NULL);
  -- Operators search merchants by name prefix, case-insensitively (ASCII: SQLite's lower()).
  CREATE INDEX merchants_name_lower ON merchants (lower(json_extract(doc, '$.name')), id);
  `,
  `
  -- Cash on delivery and tips (issue #30): collections, settlements and tips join the ledger. A
  -- settlement names a courier or a merchant and no order, so both become nullable; SQLite changes a
  -- CHECK only by copy.
  CREATE TABLE ledger_cod (
    id TEXT PRIMARY KEY,
    merchant_id TEXT,
    mode TEXT NOT NULL,
    order_id TEXT,
    kind TEXT NOT NULL CHECK (kind IN ('charge','reversal','cod_collected','cod_settlement','tip')),
    amount INTEGER NOT NULL,
    at TEXT NOT NULL,
    courier_id TEXT,
    expected INTEGER
  );
  INSERT INTO ledger_cod (id, merchant_id, mode, order_id, kind, amount, at) SELECT id, merchant_id, mode, order_id, kind, amount, at FROM ledger;
  DROP TABLE ledger;
  ALTER TABLE ledger_cod RENAME TO ledger;
  CREATE INDEX ledger_merchant ON ledger (merchant_id, mode, at);
  CREATE INDEX ledger_cod_merchant ON ledger (merchant_id, mode, kind, at, id);
  CREATE INDEX ledger_cod_courier ON ledger (courier_id) WHERE courier_id IS NOT NULL;
  -- A courier's deliveries by delivery time (the courier's earnings).
  CREATE INDEX orders_delivered_by ON orders (courier_id, json_extract(doc, '$.proof.deliveredAt'), id) WHERE status = 'completed';
  `,
  `
  -- Upload budgets (issue #39): proofs per order stop, bytes per courier and day; retention removes
  -- a counter once it expired.
  CREATE TABLE proof_budgets (key TEXT PRIMARY KEY, used INTEGER NOT NULL, expires_at TEXT NOT NULL);
  CREATE INDEX proof_budgets_expiry ON proof_budgets (expires_at);
  `,
  `
  -- A courier's duty has a planned end (issue #37): null on every courier stored before.
  UPDATE couriers SET doc = json_set(doc, '$.shiftEndsAt', json('null')) WHERE json_type(doc, '$.shiftEndsAt') IS NULL;
  `,
  `
  -- Operators' orders by pickup zone and lateness (issue #41): seeks, not row tests. The zone at
  -- the two lengths an operator's zone usually has (5: ~5 km, 6: ~1 km; shorter prefixes cover the
  -- city and keep a bounded row test), each in creation order per (mode, status). late_at, the
  -- earlier of the ETA and the delivery window's end, is computed from doc, so it follows every
  -- write of doc; only orders in progress are in its index.
  ALTER TABLE orders ADD COLUMN pickup_zone5 TEXT GENERATED ALWAYS AS (substr(pickup_geohash, 1, 5)) VIRTUAL;
  ALTER TABLE orders ADD COLUMN pickup_zone6 TEXT GENERATED ALWAYS AS (substr(pickup_geohash, 1, 6)) VIRTUAL;
  ALTER TABLE orders ADD COLUMN late_at TEXT GENERATED ALWAYS AS (
    CASE WHEN json_extract(doc, '$.deliverBefore') < json_extract(doc, '$.estimatedDeliveryAt') THEN json_extract(doc, '$.deliverBefore') ELSE json_extract(doc, '$.estimatedDeliveryAt') END
  ) VIRTUAL;
  CREATE INDEX orders_zone5 ON orders (mode, status, pickup_zone5, created_at, id);
  CREATE INDEX orders_zone6 ON orders (mode, status, pickup_zone6, created_at, id);
  CREATE INDEX orders_late ON orders (late_at, mode, status, created_at, id)
    WHERE status IN ('new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'delivery_failed', 'returning');
  `,
  `
  -- Cash that follows cash (issue #39): hand-overs join the ledger (one line per claim covered: courier,
  -- merchant, order), and a claim far above its order's amount waits for an operator (cod_state).
  -- SQLite changes a CHECK only by copy.
  CREATE TABLE ledger_handover (
    id TEXT PRIMARY KEY,
    merchant_id TEXT,
    mode TEXT NOT NULL,
    order_id TEXT,
    kind TEXT NOT NULL CHECK (kind IN ('charge','reversal','cod_collected','cod_settlement','cod_handover','tip')),
    amount INTEGER NOT NULL,
    at TEXT NOT NULL,
    courier_id TEXT,
    expected INTEGER,
    cod_state TEXT CHECK (cod_state IN ('pending_confirmation','confirmed','rejected'))
  );
  INSERT INTO ledger_handover (id, merchant_id, mode, order_id, kind, amount, at, courier_id, expected)
    SELECT id, merchant_id, mode, order_id, kind, amount, at, courier_id, expected FROM ledger;
  DROP TABLE ledger;
  ALTER TABLE ledger_handover RENAME TO ledger;
  CREATE INDEX ledger_merchant ON ledger (merchant_id, mode, at);
  CREATE INDEX ledger_cod_merchant ON ledger (merchant_id, mode, kind, at, id);
  CREATE INDEX ledger_cod_courier ON ledger (courier_id, kind) WHERE courier_id IS NOT NULL;
  -- Operators list the claims waiting for them, oldest first.
  CREATE INDEX ledger_cod_waiting ON ledger (cod_state, at, id) WHERE cod_state IS NOT NULL;
  -- What was handed over against an order's claim (the report's lines).
  CREATE INDEX ledger_cod_handover_order ON ledger (order_id) WHERE kind = 'cod_handover';
  `,
];
