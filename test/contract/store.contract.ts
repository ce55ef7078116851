import { afterEach, beforeEach, describe, expect } from 'vitest';
import { isAppError } from '../../src/domain/errors.js';
import type { Merchant, RegisteredUser } from '../../src/domain/types.js';
import type { Store, TelemetryRepository } from '../../src/ports/store.js';
import { contractCases, type ContractOptions } from './cases.js';
import { at, courier, keyFor, merchantBundle, nextId, secretFor, storeMerchant } from './fixtures.js';

/** The behaviour every Store adapter must show; makeStore returns a fresh, empty store per case. */
export function describeStoreContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions = {}): void {
  const { test, checkSkips } = contractCases('store contract', options);
  let store: Store;

  /** Telemetry rows belong to a stored merchant. */
  const storedMerchantId = () => storeMerchant(store);

  describe(`Store contract: ${name}`, () => {
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    test('ping resolves while the database is reachable (ok: nothing, or the ok condition)', async () => {
      expect((await store.ping()) ?? { status: 'ok' }).toEqual({ status: 'ok' });
    });

    test('merchants.create stores the merchant, its keys and its secret exactly', async () => {
      const b = merchantBundle();
      await store.merchants.create(b);
      expect(await store.merchants.findById(b.merchant.id)).toStrictEqual(b.merchant);
      expect(await store.apiKeys.listByMerchant(b.merchant.id)).toStrictEqual(b.keys);
      expect(await store.apiKeys.findByHash(b.keys[1]!.hash)).toStrictEqual(b.keys[1]);
      expect(await store.merchants.listSecrets(b.merchant.id)).toStrictEqual([b.secret]);
    });

    test('merchants.setSigningKey fills a secret made without an Ed25519 key once; a second call keeps the first key (issue #31)', async () => {
      const b = merchantBundle();
      const legacy = Object.assign({}, b.secret, { signingKey: null });
      await store.merchants.create(Object.assign({}, b, { secret: legacy }));
      expect(await store.merchants.listSecrets(b.merchant.id)).toStrictEqual([legacy]);
      expect(await store.merchants.setSigningKey({ secretId: legacy.id, sealed: 'v1.key-one' })).toBe('v1.key-one');
      expect(await store.merchants.setSigningKey({ secretId: legacy.id, sealed: 'v1.key-two' })).toBe('v1.key-one');
      expect(await store.merchants.listSecrets(b.merchant.id)).toStrictEqual([Object.assign({}, legacy, { signingKey: 'v1.key-one' })]);
      // A record that has its key keeps it.
      const c = merchantBundle();
      await store.merchants.create(c);
      expect(await store.merchants.setSigningKey({ secretId: c.secret.id, sealed: 'v1.other' })).toBe(c.secret.signingKey);
    });

    test('merchants.create is all or nothing: a duplicate key hash leaves no merchant behind', async () => {
      const first = merchantBundle();
      await store.merchants.create(first);
      const clash = merchantBundle();
      clash.keys[1] = { ...clash.keys[1]!, hash: first.keys[0]!.hash };
      await expect(store.merchants.create(clash)).rejects.toThrow();
      expect(await store.merchants.findById(clash.merchant.id)).toBeNull();
      expect(await store.apiKeys.listByMerchant(clash.merchant.id)).toEqual([]);
      expect(await store.apiKeys.findByHash(clash.keys[0]!.hash)).toBeNull();
      expect(await store.merchants.listSecrets(clash.merchant.id)).toEqual([]);
      expect(await store.merchants.count()).toBe(1);
      expect(await store.apiKeys.findByHash(first.keys[0]!.hash)).toStrictEqual(first.keys[0]);
    });

    test('merchants.create rejects a duplicate merchant id and keeps the original', async () => {
      const first = merchantBundle();
      await store.merchants.create(first);
      const again = merchantBundle();
      again.merchant = { ...again.merchant, id: first.merchant.id, name: 'Impostor' };
      await expect(store.merchants.create(again)).rejects.toThrow();
      expect(await store.merchants.findById(first.merchant.id)).toStrictEqual(first.merchant);
      expect(await store.apiKeys.findByHash(again.keys[0]!.hash)).toBeNull();
      expect(await store.merchants.listSecrets(first.merchant.id)).toStrictEqual([first.secret]);
    });

    test('merchants.findById returns null for an unknown id', async () => {
      expect(await store.merchants.findById('m_unknown')).toBeNull();
    });

    test('merchants.update applies every patchable field and updatedAt, and returns the stored merchant', async () => {
      const b = merchantBundle();
      await store.merchants.create(b);
      const patch = {
        name: 'Renamed',
        status: 'suspended' as const,
        address: null,
        integrations: { plugin: 'approved' as const, storefront: 'rejected' as const, erp: 'pending_approval' as const },
        settings: { ...b.merchant.settings, prepTimeMins: 12, storefrontDomain: 'shop.example.cl', integrationPlatform: 'storefront' as const, trackingShowItems: false },
        rateLimitPerMin: 600,
      };
      const updated = await store.merchants.update(b.merchant.id, patch, at(100));
      expect(updated).toStrictEqual({ ...b.merchant, ...patch, updatedAt: at(100) });
      expect(await store.merchants.findById(b.merchant.id)).toStrictEqual(updated);
    });

    test('merchants.update leaves fields outside the patch untouched', async () => {
      const b = merchantBundle();
      await store.merchants.create(b);
      const updated = await store.merchants.update(b.merchant.id, { rateLimitPerMin: null, status: 'in_review' }, at(50));
      expect(updated).toStrictEqual({ ...b.merchant, rateLimitPerMin: null, status: 'in_review', updatedAt: at(50) });
      expect(await store.merchants.findById(b.merchant.id)).toStrictEqual(updated);
    });

    test('merchants.update returns null for an unknown merchant and creates nothing', async () => {
      expect(await store.merchants.update('m_unknown', { name: 'Ghost' }, at(1))).toBeNull();
      expect(await store.merchants.findById('m_unknown')).toBeNull();
      expect(await store.merchants.count()).toBe(0);
    });

    test('merchants.count counts merchants', async () => {
      expect(await store.merchants.count()).toBe(0);
      await store.merchants.create(merchantBundle());
      await store.merchants.create(merchantBundle());
      expect(await store.merchants.count()).toBe(2);
    });

    test('merchants.list pages in id order with limit and afterId', async () => {
      const ids = ['m_c', 'm_a', 'm_e', 'm_b', 'm_d'];
      for (const id of ids) await store.merchants.create(merchantBundle({ id }));
      const page1 = await store.merchants.list({ limit: 2 });
      expect(page1.map((m) => m.id)).toEqual(['m_a', 'm_b']);
      const page2 = await store.merchants.list({ limit: 2, afterId: 'm_b' });
      expect(page2.map((m) => m.id)).toEqual(['m_c', 'm_d']);
      expect((await store.merchants.list({ limit: 2, afterId: 'm_d' })).map((m) => m.id)).toEqual(['m_e']);
      expect(await store.merchants.list({ limit: 2, afterId: 'm_e' })).toEqual([]);
      expect((await store.merchants.list({ limit: 50 })).map((m) => m.id)).toEqual(['m_a', 'm_b', 'm_c', 'm_d', 'm_e']);
      expect(page1[0]).toStrictEqual(await store.merchants.findById('m_a'));
    });

    test('merchants.search: id prefix then lower-cased name prefix, without repeats, at most limit (issue #29)', async () => {
      await store.merchants.create(merchantBundle({ id: 'm_farm1', name: 'Farmacia Central' }));
      await store.merchants.create(merchantBundle({ id: 'm_farm2', name: 'farmacia del Puerto' }));
      await store.merchants.create(merchantBundle({ id: 'm_zap', name: 'Zapatería Sur' }));
      const ids = async (idPrefix: string, namePrefix: string, limit = 10) => (await store.merchants.search({ idPrefix, namePrefix, limit })).map((m) => m.id);
      expect((await ids('farmacia', 'farmacia')).sort()).toEqual(['m_farm1', 'm_farm2']);
      expect(await ids('farmacia c', 'farmacia c')).toEqual(['m_farm1']);
      expect(await ids('m_farm', 'm_farm')).toEqual(['m_farm1', 'm_farm2']);
      expect(await ids('m_zap', 'm_zap')).toEqual(['m_zap']);
      expect(await ids('farmacia', 'farmacia', 1)).toHaveLength(1);
      expect(await ids('x', 'x')).toEqual([]);
      expect(await ids('a', 'a', 0)).toEqual([]);
    });

    test('merchants.setStorefrontSecret stores the sealed secret, keeps the replaced one as previous until its expiry, removes both with null, and keeps it all out of the merchant record', async () => {
      const b = merchantBundle();
      const other = merchantBundle();
      await store.merchants.create(b);
      await store.merchants.create(other);
      expect(await store.merchants.findStorefrontSecret(b.merchant.id)).toBeNull();

      const set = await store.merchants.setStorefrontSecret({ merchantId: b.merchant.id, sealed: 'v1.sealed-one', updatedAt: at(100), previousExpiresAt: at(5000) });
      expect(set).toStrictEqual({ ...b.merchant, settings: { ...b.merchant.settings, storefrontSharedSecretSet: true }, updatedAt: at(100) });
      expect(await store.merchants.findById(b.merchant.id)).toStrictEqual(set);
      expect(JSON.stringify(await store.merchants.list({ limit: 10 }))).not.toContain('sealed-one');
      expect(await store.merchants.findStorefrontSecret(b.merchant.id)).toStrictEqual({ current: 'v1.sealed-one', previous: null, previousExpiresAt: null });
      expect(await store.merchants.findStorefrontSecret(other.merchant.id)).toBeNull();

      await store.merchants.setStorefrontSecret({ merchantId: b.merchant.id, sealed: 'v1.sealed-two', updatedAt: at(200), previousExpiresAt: at(7400) });
      expect(await store.merchants.findStorefrontSecret(b.merchant.id)).toStrictEqual({ current: 'v1.sealed-two', previous: 'v1.sealed-one', previousExpiresAt: at(7400) });
      await store.merchants.setStorefrontSecret({ merchantId: b.merchant.id, sealed: 'v1.sealed-three', updatedAt: at(300), previousExpiresAt: at(7500) });
      expect(await store.merchants.findStorefrontSecret(b.merchant.id)).toStrictEqual({ current: 'v1.sealed-three', previous: 'v1.sealed-two', previousExpiresAt: at(7500) });

      const cleared = await store.merchants.setStorefrontSecret({ merchantId: b.merchant.id, sealed: null, updatedAt: at(400), previousExpiresAt: at(7600) });
      expect(cleared?.settings.storefrontSharedSecretSet).toBe(false);
      expect(await store.merchants.findStorefrontSecret(b.merchant.id)).toBeNull();
      // The webhook signing secrets are a different thing and stay as they were.
      expect(await store.merchants.listSecrets(b.merchant.id)).toStrictEqual([b.secret]);
    });

    test('merchants.setStorefrontSecret for an unknown merchant answers null and stores nothing', async () => {
      expect(await store.merchants.setStorefrontSecret({ merchantId: 'm_unknown', sealed: 'v1.sealed', updatedAt: at(100), previousExpiresAt: at(200) })).toBeNull();
      expect(await store.merchants.findStorefrontSecret('m_unknown')).toBeNull();
    });

    test('merchants.rotateSecret adds the new secret and expires only the current one; listSecrets is newest first', async () => {
      const b = merchantBundle();
      const other = merchantBundle();
      await store.merchants.create(b);
      await store.merchants.create(other);
      const s2 = secretFor(b.merchant.id, at(10));
      await store.merchants.rotateSecret(s2, at(1000));
      expect(await store.merchants.listSecrets(b.merchant.id)).toStrictEqual([s2, { ...b.secret, expiresAt: at(1000) }]);
      const s3 = secretFor(b.merchant.id, at(20));
      await store.merchants.rotateSecret(s3, at(2000));
      expect(await store.merchants.listSecrets(b.merchant.id)).toStrictEqual([
        s3,
        { ...s2, expiresAt: at(2000) },
        { ...b.secret, expiresAt: at(1000) },
      ]);
      expect(await store.merchants.listSecrets(other.merchant.id)).toStrictEqual([other.secret]);
    });

    test('merchants.rotateSecret for an unknown merchant fails and writes nothing', async () => {
      await expect(store.merchants.rotateSecret(secretFor('m_unknown', at(10)), at(1000))).rejects.toThrow();
      expect(await store.merchants.listSecrets('m_unknown')).toEqual([]);
    });

    test('merchants.rotateSecret: concurrent rotations leave exactly one current secret', async () => {
      const b = merchantBundle();
      await store.merchants.create(b);
      const rotations = Array.from({ length: 6 }, (_, i) => secretFor(b.merchant.id, at(10 + i)));
      await Promise.all(rotations.map((s) => store.merchants.rotateSecret(s, at(5000))));
      const secrets = await store.merchants.listSecrets(b.merchant.id);
      expect(secrets).toHaveLength(rotations.length + 1);
      expect(secrets.filter((s) => s.expiresAt === null)).toHaveLength(1);
    });

    test('credentialsVersion is null, or moves after every merchant and API key change', async () => {
      const b = merchantBundle();
      const versions = [store.credentialsVersion()];
      await store.merchants.create(b);
      versions.push(store.credentialsVersion());
      await store.merchants.update(b.merchant.id, { status: 'suspended' }, at(1));
      versions.push(store.credentialsVersion());
      await store.apiKeys.replace(keyFor(b.merchant.id, 'test', at(2)), at(2));
      versions.push(store.credentialsVersion());
      await store.apiKeys.revoke({ merchantId: b.merchant.id, mode: 'live', revokedAt: at(3) });
      versions.push(store.credentialsVersion());
      if (versions[0] === null) expect(versions.every((v) => v === null)).toBe(true);
      else expect(new Set(versions).size).toBe(versions.length);
    });

    test('apiKeys.findByHash finds a key by its hash and returns null for an unknown hash', async () => {
      const b = merchantBundle();
      await store.merchants.create(b);
      expect(await store.apiKeys.findByHash(b.keys[0]!.hash)).toStrictEqual(b.keys[0]);
      expect(await store.apiKeys.findByHash('0'.repeat(64))).toBeNull();
    });

    test("apiKeys.listByMerchant lists only that merchant's keys in creation order", async () => {
      const b = merchantBundle();
      const other = merchantBundle();
      await store.merchants.create(b);
      await store.merchants.create(other);
      const later = keyFor(b.merchant.id, 'live', at(30));
      await store.apiKeys.replace(later, at(30));
      const keys = await store.apiKeys.listByMerchant(b.merchant.id);
      expect(keys.map((k) => k.id)).toEqual([b.keys[0]!.id, b.keys[1]!.id, later.id]);
      expect(await store.apiKeys.listByMerchant('m_unknown')).toEqual([]);
    });

    test('apiKeys.replace revokes the active keys of that merchant and mode and inserts the replacement', async () => {
      const b = merchantBundle();
      const other = merchantBundle();
      await store.merchants.create(b);
      await store.merchants.create(other);
      const fresh = keyFor(b.merchant.id, 'live', at(40));
      expect(await store.apiKeys.replace(fresh, at(40))).toBe(1);
      const [live, test] = b.keys;
      expect(await store.apiKeys.findByHash(live!.hash)).toStrictEqual({ ...live, status: 'revoked', revokedAt: at(40) });
      expect(await store.apiKeys.findByHash(test!.hash)).toStrictEqual(test);
      expect(await store.apiKeys.findByHash(fresh.hash)).toStrictEqual(fresh);
      expect(await store.apiKeys.listByMerchant(other.merchant.id)).toStrictEqual(other.keys);
    });

    test('apiKeys.replace is all or nothing: a duplicate hash revokes nothing', async () => {
      const b = merchantBundle();
      await store.merchants.create(b);
      const clash = { ...keyFor(b.merchant.id, 'live', at(40)), hash: b.keys[1]!.hash };
      await expect(store.apiKeys.replace(clash, at(40))).rejects.toThrow();
      expect(await store.apiKeys.listByMerchant(b.merchant.id)).toStrictEqual(b.keys);
    });

    test('apiKeys.replace for an unknown merchant fails and inserts nothing', async () => {
      const orphan = keyFor('m_unknown', 'live', at(40));
      await expect(store.apiKeys.replace(orphan, at(40))).rejects.toThrow();
      expect(await store.apiKeys.findByHash(orphan.hash)).toBeNull();
    });

    test('apiKeys.replace: concurrent replacements leave exactly one active key', async () => {
      const b = merchantBundle();
      await store.merchants.create(b);
      await store.apiKeys.revoke({ merchantId: b.merchant.id, mode: 'live', revokedAt: at(5) }); // none active: nothing to conflict on
      const fresh = Array.from({ length: 6 }, (_, i) => keyFor(b.merchant.id, 'live', at(10 + i)));
      const revoked = await Promise.all(fresh.map((k) => store.apiKeys.replace(k, at(60))));
      const active = (await store.apiKeys.listByMerchant(b.merchant.id)).filter((k) => k.mode === 'live' && k.status === 'active');
      expect(active).toHaveLength(1);
      expect(revoked.reduce((sum, n) => sum + n, 0)).toBe(fresh.length - 1);
    });

    test('apiKeys.revoke revokes the active keys of that merchant and mode only, once, and counts them', async () => {
      const b = merchantBundle();
      const other = merchantBundle();
      await store.merchants.create(b);
      await store.merchants.create(other);
      expect(await store.apiKeys.revoke({ merchantId: b.merchant.id, mode: 'test', revokedAt: at(70) })).toBe(1);
      expect(await store.apiKeys.revoke({ merchantId: b.merchant.id, mode: 'test', revokedAt: at(80) })).toBe(0);
      expect(await store.apiKeys.listByMerchant(b.merchant.id)).toStrictEqual([
        b.keys[0],
        { ...b.keys[1], status: 'revoked', revokedAt: at(70) },
      ]);
      expect(await store.apiKeys.listByMerchant(other.merchant.id)).toStrictEqual(other.keys);
      expect(await store.apiKeys.revoke({ merchantId: 'm_unknown', mode: 'live', revokedAt: at(70) })).toBe(0);
    });

    test('users.insert stores the user and findByRut returns it exactly', async () => {
      const full = user('12345678-5', { name: 'Ana Pérez', phone: '+56912345678' });
      const bare = user('11111111-1');
      expect(await store.users.insert(full)).toBe(true);
      expect(await store.users.insert(bare)).toBe(true);
      expect(await store.users.findByRut('12345678-5')).toStrictEqual(full);
      expect(await store.users.findByRut('11111111-1')).toStrictEqual(bare);
    });

    test('users.insert returns false for a registered RUT and keeps the first user', async () => {
      const first = user('12345678-5', { name: 'First' });
      await store.users.insert(first);
      expect(await store.users.insert(user('12345678-5', { name: 'Second' }))).toBe(false);
      expect(await store.users.findByRut('12345678-5')).toStrictEqual(first);
    });

    test('users.insert: of concurrent inserts of one RUT exactly one succeeds', async () => {
      const attempts = Array.from({ length: 8 }, (_, i) => user('12345678-5', { name: `U${i}` }));
      const results = await Promise.all(attempts.map((u) => store.users.insert(u)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.users.findByRut('12345678-5')).toStrictEqual(attempts[results.indexOf(true)]);
    });

    test('users.findByRut returns null for an unknown RUT', async () => {
      expect(await store.users.findByRut('12345678-5')).toBeNull();
    });

    test('couriers.insert stores the courier; findById and findByTokenHash return it exactly', async () => {
      const c = courier();
      await store.couriers.insert(c);
      expect(await store.couriers.findById(c.id)).toStrictEqual(c);
      expect(await store.couriers.findByTokenHash(c.tokenHash)).toStrictEqual(c);
    });

    test('couriers.delete removes the courier (a sandbox run\'s, when the run ends); false when there was none', async () => {
      const [gone, kept] = [courier(), courier()];
      for (const c of [gone, kept]) await store.couriers.insert(c);
      expect(await store.couriers.delete(gone.id)).toBe(true);
      expect(await store.couriers.findById(gone.id)).toBeNull();
      expect(await store.couriers.findByTokenHash(gone.tokenHash)).toBeNull();
      expect((await store.couriers.listByMode(gone.mode)).map((c) => c.id)).not.toContain(gone.id);
      expect(await store.couriers.findById(kept.id)).toStrictEqual(kept);
      expect(await store.couriers.delete(gone.id)).toBe(false);
    });

    test('couriers.insert rejects a duplicate token hash', async () => {
      const first = courier();
      await store.couriers.insert(first);
      const clash = { ...courier(), tokenHash: first.tokenHash };
      await expect(store.couriers.insert(clash)).rejects.toThrow();
      expect(await store.couriers.findById(clash.id)).toBeNull();
      expect(await store.couriers.findByTokenHash(first.tokenHash)).toStrictEqual(first);
    });

    test('couriers.findById and findByTokenHash return null when unknown', async () => {
      expect(await store.couriers.findById('c_unknown')).toBeNull();
      expect(await store.couriers.findByTokenHash('f'.repeat(64))).toBeNull();
    });

    test("couriers.listByMode lists one mode's couriers in id order", async () => {
      const b = courier({ id: 'c_b', mode: 'test' });
      const a = courier({ id: 'c_a', mode: 'test' });
      const live = courier({ id: 'c_0', mode: 'live' });
      for (const c of [b, live, a]) await store.couriers.insert(c);
      expect(await store.couriers.listByMode('test')).toStrictEqual([a, b]);
      expect(await store.couriers.listByMode('live')).toStrictEqual([live]);
    });

    test('couriers.listPage pages every courier in id order, filtered by mode and duty status', async () => {
      const a = courier({ id: 'c_a', mode: 'test', status: 'available' });
      const b = courier({ id: 'c_b', mode: 'live', status: 'busy' });
      const c = courier({ id: 'c_c', mode: 'test', status: 'off_duty' });
      const d = courier({ id: 'c_d', mode: 'test', status: 'available' });
      for (const x of [d, b, c, a]) await store.couriers.insert(x);
      expect(await store.couriers.listPage({ limit: 2 })).toStrictEqual([a, b]);
      expect(await store.couriers.listPage({ limit: 2, afterId: 'c_b' })).toStrictEqual([c, d]);
      expect(await store.couriers.listPage({ limit: 10, afterId: 'c_d' })).toStrictEqual([]);
      expect(await store.couriers.listPage({ limit: 10, mode: 'test' })).toStrictEqual([a, c, d]);
      expect(await store.couriers.listPage({ limit: 10, mode: 'test', status: 'available', afterId: 'c_a' })).toStrictEqual([d]);
      expect(await store.couriers.listPage({ limit: 10, status: 'busy' })).toStrictEqual([b]);
    });

    test('couriers.setStatus without from sets the status and updatedAt', async () => {
      const c = courier({ status: 'busy' });
      await store.couriers.insert(c);
      const next = await store.couriers.setStatus({ id: c.id, status: 'off_duty', updatedAt: at(90) });
      expect(next).toStrictEqual({ ...c, status: 'off_duty', updatedAt: at(90) });
      expect(await store.couriers.findById(c.id)).toStrictEqual(next);
    });

    test('couriers.setStatus with from succeeds when the current status is listed', async () => {
      const c = courier({ status: 'available' });
      await store.couriers.insert(c);
      const next = await store.couriers.setStatus({ id: c.id, status: 'busy', from: ['off_duty', 'available'], updatedAt: at(91) });
      expect(next).toStrictEqual({ ...c, status: 'busy', updatedAt: at(91) });
      expect(await store.couriers.findById(c.id)).toStrictEqual(next);
    });

    test('couriers.setStatus with from fails and changes nothing when the current status is not listed', async () => {
      const c = courier({ status: 'busy' });
      await store.couriers.insert(c);
      expect(await store.couriers.setStatus({ id: c.id, status: 'busy', from: ['available'], updatedAt: at(92) })).toBeNull();
      expect(await store.couriers.setStatus({ id: c.id, status: 'available', from: [], updatedAt: at(92) })).toBeNull();
      expect(await store.couriers.findById(c.id)).toStrictEqual(c);
    });

    test('couriers.setStatus returns null for an unknown courier', async () => {
      expect(await store.couriers.setStatus({ id: 'c_unknown', status: 'busy', updatedAt: at(93) })).toBeNull();
      expect(await store.couriers.setStatus({ id: 'c_unknown', status: 'busy', from: ['available'], updatedAt: at(93) })).toBeNull();
      expect(await store.couriers.findById('c_unknown')).toBeNull();
    });

    test('couriers.setStatus: of N concurrent claims from available exactly one wins', async () => {
      const c = courier({ status: 'available' });
      await store.couriers.insert(c);
      const claims = Array.from({ length: 10 }, (_, i) =>
        store.couriers.setStatus({ id: c.id, status: 'busy', from: ['available'], updatedAt: at(100 + i) }),
      );
      const results = await Promise.all(claims);
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect(await store.couriers.findById(c.id)).toStrictEqual(winners[0]);
    });

    test('couriers.setLocations records each position and its time and keeps the rest', async () => {
      const c = courier({ status: 'available' });
      const other = courier({ status: 'busy' });
      await store.couriers.insert(c);
      await store.couriers.insert(other);
      await store.couriers.setLocations([
        { id: c.id, location: { lat: -33.4372, lng: -70.6506 }, at: at(110) },
        { id: other.id, location: { lat: -33.41, lng: -70.6 }, at: at(111) },
      ]);
      expect(await store.couriers.findById(c.id)).toStrictEqual({ ...c, location: { lat: -33.4372, lng: -70.6506 }, locationAt: at(110) });
      expect(await store.couriers.findById(other.id)).toStrictEqual({ ...other, location: { lat: -33.41, lng: -70.6 }, locationAt: at(111) });
      await store.couriers.setLocations([{ id: c.id, location: { lat: -33.45, lng: -70.66 }, at: at(120) }]);
      expect((await store.couriers.findById(c.id))?.location).toStrictEqual({ lat: -33.45, lng: -70.66 });
    });

    test('couriers.setLocations ignores a position older than the stored one', async () => {
      const c = courier({ status: 'available' });
      await store.couriers.insert(c);
      await store.couriers.setLocations([{ id: c.id, location: { lat: -33.45, lng: -70.66 }, at: at(120) }]);
      await store.couriers.setLocations([{ id: c.id, location: { lat: -33.4, lng: -70.6 }, at: at(119) }]);
      const stored = await store.couriers.findById(c.id);
      expect(stored?.location).toStrictEqual({ lat: -33.45, lng: -70.66 });
      expect(stored?.locationAt).toBe(at(120));
    });

    test('couriers.setLocations skips unknown couriers and writes the known ones', async () => {
      const c = courier({ status: 'available' });
      await store.couriers.insert(c);
      await expect(
        store.couriers.setLocations([
          { id: 'c_unknown', location: { lat: 0, lng: 0 }, at: at(1) },
          { id: c.id, location: { lat: -33.44, lng: -70.65 }, at: at(2) },
        ]),
      ).resolves.toBeUndefined();
      expect(await store.couriers.findById('c_unknown')).toBeNull();
      expect((await store.couriers.findById(c.id))?.location).toStrictEqual({ lat: -33.44, lng: -70.65 });
    });

    test('a status change keeps the latest position, and the position keeps the status', async () => {
      const c = courier({ status: 'available' });
      await store.couriers.insert(c);
      await store.couriers.setLocations([{ id: c.id, location: { lat: -33.44, lng: -70.65 }, at: at(130) }]);
      const busy = await store.couriers.setStatus({ id: c.id, status: 'busy', from: ['available'], job: { kind: 'order', id: 'o_1' }, updatedAt: at(131) });
      expect(busy?.location).toStrictEqual({ lat: -33.44, lng: -70.65 });
      await store.couriers.setLocations([{ id: c.id, location: { lat: -33.43, lng: -70.64 }, at: at(132) }]);
      const stored = await store.couriers.findById(c.id);
      expect(stored?.status).toBe('busy');
      expect(stored?.job).toStrictEqual({ kind: 'order', id: 'o_1' });
      expect(stored?.location).toStrictEqual({ lat: -33.43, lng: -70.64 });
    });

    test('couriers.replaceTokenHash: the new hash finds the courier, the old one nothing; the rest is kept', async () => {
      const c = courier({ status: 'busy', job: { kind: 'order', id: 'o_1' } });
      await store.couriers.insert(c);
      const fresh = 'a'.repeat(64);
      const next = await store.couriers.replaceTokenHash({ id: c.id, tokenHash: fresh, updatedAt: at(130) });
      expect(next).toStrictEqual({ ...c, tokenHash: fresh, updatedAt: at(130) });
      expect(await store.couriers.findByTokenHash(c.tokenHash)).toBeNull();
      expect(await store.couriers.findByTokenHash(fresh)).toStrictEqual(next);
      expect(await store.couriers.findById(c.id)).toStrictEqual(next);
    });

    test("couriers.replaceTokenHash rejects another courier's hash and changes nothing; null when unknown", async () => {
      const a = courier();
      const b = courier();
      await store.couriers.insert(a);
      await store.couriers.insert(b);
      await expect(store.couriers.replaceTokenHash({ id: b.id, tokenHash: a.tokenHash, updatedAt: at(131) })).rejects.toThrow();
      expect(await store.couriers.findById(b.id)).toStrictEqual(b);
      expect(await store.couriers.findByTokenHash(a.tokenHash)).toStrictEqual(a);
      expect(await store.couriers.replaceTokenHash({ id: 'c_unknown', tokenHash: 'b'.repeat(64), updatedAt: at(131) })).toBeNull();
      expect(await store.couriers.findByTokenHash('b'.repeat(64))).toBeNull();
    });

    test('couriers.setAccountStatus disables and enables; findByTokenHash returns the status; null when unknown', async () => {
      const c = courier({ status: 'available' });
      await store.couriers.insert(c);
      const disabled = await store.couriers.setAccountStatus({ id: c.id, accountStatus: 'disabled', updatedAt: at(140) });
      expect(disabled).toStrictEqual({ ...c, accountStatus: 'disabled', updatedAt: at(140) });
      expect(await store.couriers.findByTokenHash(c.tokenHash)).toStrictEqual(disabled);
      const enabled = await store.couriers.setAccountStatus({ id: c.id, accountStatus: 'active', updatedAt: at(141) });
      expect(enabled).toStrictEqual({ ...c, updatedAt: at(141) });
      expect(await store.couriers.findById(c.id)).toStrictEqual(enabled);
      expect(await store.couriers.setAccountStatus({ id: 'c_unknown', accountStatus: 'disabled', updatedAt: at(142) })).toBeNull();
    });

    test('couriers.setStatus never makes a disabled courier available or busy; off duty applies', async () => {
      const c = courier({ status: 'available', accountStatus: 'disabled' });
      await store.couriers.insert(c);
      expect(await store.couriers.setStatus({ id: c.id, status: 'busy', from: ['available'], job: { kind: 'order', id: 'o_2' }, updatedAt: at(150) })).toBeNull();
      expect(await store.couriers.setStatus({ id: c.id, status: 'available', updatedAt: at(150) })).toBeNull();
      expect(await store.couriers.findById(c.id)).toStrictEqual(c);
      const off = await store.couriers.setStatus({ id: c.id, status: 'off_duty', from: ['available'], job: null, updatedAt: at(151) });
      expect(off).toStrictEqual({ ...c, status: 'off_duty', updatedAt: at(151) });
      await store.couriers.setAccountStatus({ id: c.id, accountStatus: 'active', updatedAt: at(152) });
      expect(await store.couriers.setStatus({ id: c.id, status: 'available', from: ['off_duty'], updatedAt: at(153) })).toMatchObject({ status: 'available' });
    });

    test('couriers.setStatus writes shiftEndsAt when given and keeps it otherwise; going off duty can clear it', async () => {
      const c = courier({ status: 'off_duty' });
      await store.couriers.insert(c);
      expect((await store.couriers.findById(c.id))?.shiftEndsAt).toBeNull();
      const on = await store.couriers.setStatus({ id: c.id, status: 'available', from: ['off_duty'], shiftEndsAt: at(600), updatedAt: at(160) });
      expect(on).toStrictEqual({ ...c, status: 'available', shiftEndsAt: at(600), updatedAt: at(160) });
      const busy = await store.couriers.setStatus({ id: c.id, status: 'busy', from: ['available'], job: { kind: 'order', id: 'o_3' }, updatedAt: at(161) });
      expect(busy?.shiftEndsAt).toBe(at(600));
      expect((await store.couriers.findById(c.id))?.shiftEndsAt).toBe(at(600));
      const off = await store.couriers.setStatus({ id: c.id, status: 'off_duty', job: null, shiftEndsAt: null, updatedAt: at(162) });
      expect(off).toStrictEqual({ ...c, status: 'off_duty', job: null, shiftEndsAt: null, updatedAt: at(162) });
      expect(await store.couriers.findById(c.id)).toStrictEqual(off);
    });

    test('couriers.setShiftEnd sets and clears the planned end while on duty; null when off duty or unknown', async () => {
      const c = courier({ status: 'busy', job: { kind: 'order', id: 'o_4' } });
      await store.couriers.insert(c);
      const set = await store.couriers.setShiftEnd({ id: c.id, shiftEndsAt: at(700), updatedAt: at(170) });
      expect(set).toStrictEqual({ ...c, shiftEndsAt: at(700), updatedAt: at(170) });
      expect(await store.couriers.findById(c.id)).toStrictEqual(set);
      const cleared = await store.couriers.setShiftEnd({ id: c.id, shiftEndsAt: null, updatedAt: at(171) });
      expect(cleared).toStrictEqual({ ...c, shiftEndsAt: null, updatedAt: at(171) });
      const off = courier({ status: 'off_duty' });
      await store.couriers.insert(off);
      expect(await store.couriers.setShiftEnd({ id: off.id, shiftEndsAt: at(700), updatedAt: at(172) })).toBeNull();
      expect(await store.couriers.findById(off.id)).toStrictEqual(off);
      expect(await store.couriers.setShiftEnd({ id: 'c_unknown', shiftEndsAt: at(700), updatedAt: at(172) })).toBeNull();
    });

    test('merchants.update merges settings and integrations key by key', async () => {
      const b = merchantBundle();
      await store.merchants.create(b);
      const updated = await store.merchants.update(
        b.merchant.id,
        { settings: { prepTimeMins: 9 }, integrations: { plugin: 'approved' } },
        at(60),
      );
      expect(updated).toStrictEqual({
        ...b.merchant,
        settings: { ...b.merchant.settings, prepTimeMins: 9 },
        integrations: { ...b.merchant.integrations, plugin: 'approved' },
        updatedAt: at(60),
      });
      expect(await store.merchants.findById(b.merchant.id)).toStrictEqual(updated);
    });

    test('merchants.update: concurrent patches of different keys all land', async () => {
      const b = merchantBundle();
      await store.merchants.create(b);
      await Promise.all([
        store.merchants.update(b.merchant.id, { settings: { prepTimeMins: 33 } }, at(61)),
        store.merchants.update(b.merchant.id, { settings: { webhookCourierLocation: true } }, at(62)),
        store.merchants.update(b.merchant.id, { settings: { storefrontDomain: 'merge.example.cl' } }, at(63)),
        store.merchants.update(b.merchant.id, { integrations: { plugin: 'approved' } }, at(64)),
        store.merchants.update(b.merchant.id, { integrations: { erp: 'approved' } }, at(65)),
        store.merchants.update(b.merchant.id, { name: 'Renamed concurrently' }, at(66)),
      ]);
      const merged = await store.merchants.findById(b.merchant.id);
      expect(merged).toMatchObject({
        name: 'Renamed concurrently',
        settings: { ...b.merchant.settings, prepTimeMins: 33, webhookCourierLocation: true, storefrontDomain: 'merge.example.cl' },
        integrations: { plugin: 'approved', storefront: 'approved', erp: 'approved' },
      });
    });

    test('merchants.findByStorefrontDomain finds the merchant that registered the domain, until it is cleared', async () => {
      const b = merchantBundle();
      const other = merchantBundle();
      await store.merchants.create(b);
      await store.merchants.create(other);
      expect(await store.merchants.findByStorefrontDomain('shop.example.cl')).toBeNull();
      await store.merchants.update(b.merchant.id, { settings: { storefrontDomain: 'shop.example.cl' } }, at(70));
      expect(await store.merchants.findByStorefrontDomain('shop.example.cl')).toStrictEqual(await store.merchants.findById(b.merchant.id));
      expect(await store.merchants.findByStorefrontDomain('other.example.cl')).toBeNull();
      await store.merchants.update(b.merchant.id, { settings: { storefrontDomain: null } }, at(71));
      expect(await store.merchants.findByStorefrontDomain('shop.example.cl')).toBeNull();
      // Merchants without a domain do not clash with each other (null is not a domain).
      await store.merchants.update(other.merchant.id, { settings: { storefrontDomain: null, prepTimeMins: 1 } }, at(72));
      expect((await store.merchants.findById(other.merchant.id))?.settings.prepTimeMins).toBe(1);
    });

    test('merchants.update: a storefront domain of another merchant rejects with CONFLICT and changes nothing', async () => {
      const first = merchantBundle();
      const second = merchantBundle();
      await store.merchants.create(first);
      await store.merchants.create(second);
      const owner = await store.merchants.update(first.merchant.id, { settings: { storefrontDomain: 'shop.example.cl' } }, at(80));
      const error = await store.merchants
        .update(second.merchant.id, { name: 'Copycat', settings: { storefrontDomain: 'shop.example.cl', prepTimeMins: 44 } }, at(81))
        .then(() => null, (e: unknown) => e);
      expect(isAppError(error) && error.code).toBe('CONFLICT');
      expect(await store.merchants.findById(second.merchant.id)).toStrictEqual(second.merchant);
      expect(await store.merchants.findByStorefrontDomain('shop.example.cl')).toStrictEqual(owner);
      // Setting its own domain again is not a conflict.
      expect(await store.merchants.update(first.merchant.id, { settings: { storefrontDomain: 'shop.example.cl' } }, at(82))).not.toBeNull();
    });

    test('merchants.update: of concurrent claims of one storefront domain exactly one wins', async () => {
      const bundles = Array.from({ length: 5 }, () => merchantBundle());
      for (const b of bundles) await store.merchants.create(b);
      const results = await Promise.allSettled(
        bundles.map((b, i) => store.merchants.update(b.merchant.id, { settings: { storefrontDomain: 'race.example.cl' } }, at(90 + i))),
      );
      const winners = results.filter((r) => r.status === 'fulfilled');
      expect(winners).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(isAppError(r.reason) && r.reason.code).toBe('CONFLICT');
      const owner = await store.merchants.findByStorefrontDomain('race.example.cl');
      expect(owner).toStrictEqual((winners[0] as PromiseFulfilledResult<Merchant | null>).value);
    });

    test('telemetry.record creates one row per merchant, mode, integration and site, and counts calls', async () => {
      const m = await storedMerchantId();
      await store.telemetry.record(call(m, { at: at(10) }));
      await store.telemetry.record(call(m, { at: at(20) }));
      await store.telemetry.record(call(m, { at: at(30) }));
      expect(await store.telemetry.listByMerchant(m)).toStrictEqual([
        {
          merchantId: m,
          mode: 'test',
          integration: 'plugin',
          site: 'https://shop.example.cl',
          pluginVersion: '1.4.0',
          userAgent: 'WordPress/6.4.2; https://shop.example.cl',
          callCount: 3,
          firstSeenAt: at(10),
          lastSeenAt: at(30),
        },
      ]);
      await store.telemetry.record(call(m, { mode: 'live', at: at(31) }));
      await store.telemetry.record(call(m, { integration: 'erp', at: at(32) }));
      await store.telemetry.record(call(m, { site: 'https://otra.example.cl', at: at(33) }));
      await store.telemetry.record(call(await storedMerchantId(), { at: at(34) }));
      const rows = await store.telemetry.listByMerchant(m);
      expect(rows.map((r) => [r.mode, r.integration, r.site, r.callCount])).toStrictEqual([
        ['test', 'plugin', 'https://otra.example.cl', 1],
        ['test', 'erp', 'https://shop.example.cl', 1],
        ['live', 'plugin', 'https://shop.example.cl', 1],
        ['test', 'plugin', 'https://shop.example.cl', 3],
      ]);
    });

    test('telemetry.record keeps the earliest first-seen and latest last-seen when calls arrive out of order', async () => {
      const m = await storedMerchantId();
      await store.telemetry.record(call(m, { at: at(50) }));
      await store.telemetry.record(call(m, { at: at(20) }));
      await store.telemetry.record(call(m, { at: at(40) }));
      expect(await store.telemetry.listByMerchant(m)).toMatchObject([{ callCount: 3, firstSeenAt: at(20), lastSeenAt: at(50) }]);
    });

    test('telemetry.record: a null site is its own row; null version or agent never erases a known one', async () => {
      const m = await storedMerchantId();
      await store.telemetry.record(call(m, { site: null, pluginVersion: null, userAgent: null, at: at(1) }));
      expect(await store.telemetry.listByMerchant(m)).toMatchObject([{ site: null, pluginVersion: null, userAgent: null, callCount: 1 }]);
      await store.telemetry.record(call(m, { site: null, pluginVersion: '2.0.0', userAgent: 'curl/8', at: at(2) }));
      await store.telemetry.record(call(m, { site: null, pluginVersion: null, userAgent: null, at: at(3) }));
      expect(await store.telemetry.listByMerchant(m)).toMatchObject([{ site: null, pluginVersion: '2.0.0', userAgent: 'curl/8', callCount: 3 }]);
      await store.telemetry.record(call(m, { site: null, pluginVersion: '2.1.0', userAgent: null, at: at(4) }));
      expect(await store.telemetry.listByMerchant(m)).toMatchObject([{ pluginVersion: '2.1.0', userAgent: 'curl/8', callCount: 4 }]);
    });

    test('telemetry.listByMerchant: most recently seen first; ties by integration, then site', async () => {
      const m = await storedMerchantId();
      await store.telemetry.record(call(m, { integration: 'storefront', site: 'b.example.cl', at: at(5) }));
      await store.telemetry.record(call(m, { integration: 'storefront', site: 'a.example.cl', at: at(5) }));
      await store.telemetry.record(call(m, { integration: 'erp', site: 'z.example.cl', at: at(5) }));
      await store.telemetry.record(call(m, { integration: 'plugin', site: 'old.example.cl', at: at(1) }));
      await store.telemetry.record(call(m, { integration: 'plugin', site: 'new.example.cl', at: at(9) }));
      expect((await store.telemetry.listByMerchant(m)).map((r) => `${r.integration} ${r.site}`)).toStrictEqual([
        'plugin new.example.cl',
        'erp z.example.cl',
        'storefront a.example.cl',
        'storefront b.example.cl',
        'plugin old.example.cl',
      ]);
      expect(await store.telemetry.listByMerchant('m_unknown')).toStrictEqual([]);
    });

    test('telemetry.record: concurrent calls of one row are all counted', async () => {
      const m = await storedMerchantId();
      await Promise.all(Array.from({ length: 10 }, (_, i) => store.telemetry.record(call(m, { at: at(100 + i) }))));
      expect(await store.telemetry.listByMerchant(m)).toMatchObject([{ callCount: 10, firstSeenAt: at(100), lastSeenAt: at(109) }]);
    });

    // Last in the suite body, once every case is registered.
    checkSkips();
  });
}

type TelemetryCall = Parameters<TelemetryRepository['record']>[0];

/** One integration call from a WooCommerce site; fields overridable. */
function call(merchantId: string, overrides: Partial<TelemetryCall> = {}): TelemetryCall {
  return {
    merchantId,
    mode: 'test',
    integration: 'plugin',
    site: 'https://shop.example.cl',
    pluginVersion: '1.4.0',
    userAgent: 'WordPress/6.4.2; https://shop.example.cl',
    at: at(0),
    ...overrides,
  };
}

function user(rut: string, fields: Partial<Pick<RegisteredUser, 'name' | 'phone'>> = {}): RegisteredUser {
  return { id: nextId('usr'), rut, name: fields.name ?? null, phone: fields.phone ?? null, createdAt: at(3) };
}
