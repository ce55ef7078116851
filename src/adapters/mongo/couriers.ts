import type { Filter } from 'mongodb';
import type { Courier } from '../../domain/types.js';
import type { CourierRepository } from '../../ports/store.js';
import type { CourierDoc, MongoDatabase } from './database.js';

const toCourierDoc = (c: Courier): CourierDoc => ({
  _id: c.id,
  mode: c.mode,
  name: c.name,
  phone: c.phone,
  vehicle: c.vehicle,
  plate: c.plate,
  tokenHash: c.tokenHash,
  accountStatus: c.accountStatus,
  status: c.status,
  job: c.job,
  shiftEndsAt: c.shiftEndsAt,
  location: c.location,
  locationAt: c.locationAt,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

const toCourier = (d: CourierDoc): Courier => ({
  id: d._id,
  mode: d.mode,
  name: d.name,
  phone: d.phone,
  vehicle: d.vehicle,
  plate: d.plate,
  tokenHash: d.tokenHash,
  // Documents written before accounts could be disabled have no field.
  accountStatus: d.accountStatus ?? 'active',
  status: d.status,
  job: d.job ?? null,
  // Documents written before shifts had an end have no field.
  shiftEndsAt: d.shiftEndsAt ?? null,
  location: d.location,
  locationAt: d.locationAt,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

export function createMongoCourierRepository(database: MongoDatabase): CourierRepository {
  const { couriers } = database.collections;
  return {
    async insert(courier) {
      await couriers.insertOne(toCourierDoc(courier));
    },
    async findById(id) {
      const doc = await couriers.findOne({ _id: id });
      return doc ? toCourier(doc) : null;
    },
    async findByTokenHash(hash) {
      const doc = await couriers.findOne({ tokenHash: hash });
      return doc ? toCourier(doc) : null;
    },
    async listByMode(mode) {
      const docs = await couriers.find({ mode }).sort({ _id: 1 }).toArray();
      return docs.map(toCourier);
    },
    async listPage({ mode, status, afterId, limit }) {
      const filter: Filter<CourierDoc> = {};
      if (afterId !== undefined) filter._id = { $gt: afterId };
      if (mode !== undefined) filter.mode = mode;
      if (status !== undefined) filter.status = status;
      const docs = await couriers.find(filter).sort({ _id: 1 }).limit(limit).toArray();
      return docs.map(toCourier);
    },
    async setStatus({ id, status, from, fromJobId, job, shiftEndsAt, updatedAt }) {
      // Compare-and-set in one document write: the expected status and job are part of the filter.
      const filter: Filter<CourierDoc> = { _id: id };
      if (from !== undefined) filter.status = { $in: from };
      if (fromJobId !== undefined) filter['job.id'] = fromJobId;
      if (status !== 'off_duty') filter.accountStatus = { $ne: 'disabled' };
      const doc = await couriers.findOneAndUpdate(
        filter,
        { $set: { status, updatedAt, ...(job !== undefined && { job }), ...(shiftEndsAt !== undefined && { shiftEndsAt }) } },
        { returnDocument: 'after' },
      );
      return doc ? toCourier(doc) : null;
    },
    async setLocations(positions) {
      if (positions.length === 0) return;
      // Unordered: one courier's failure does not hold back the others'. The filter keeps a newer stored position.
      await couriers.bulkWrite(
        positions.map(({ id, location, at }) => ({
          updateOne: { filter: { _id: id, $or: [{ locationAt: null }, { locationAt: { $lte: at } }] }, update: { $set: { location, locationAt: at } } },
        })),
        { ordered: false },
      );
    },
    async replaceTokenHash({ id, tokenHash, updatedAt }) {
      const doc = await couriers.findOneAndUpdate({ _id: id }, { $set: { tokenHash, updatedAt } }, { returnDocument: 'after' });
      return doc ? toCourier(doc) : null;
    },
    async setShiftEnd({ id, shiftEndsAt, updatedAt }) {
      const doc = await couriers.findOneAndUpdate({ _id: id, status: { $ne: 'off_duty' } }, { $set: { shiftEndsAt, updatedAt } }, { returnDocument: 'after' });
      return doc ? toCourier(doc) : null;
    },
    async setAccountStatus({ id, accountStatus, updatedAt }) {
      const doc = await couriers.findOneAndUpdate({ _id: id }, { $set: { accountStatus, updatedAt } }, { returnDocument: 'after' });
      return doc ? toCourier(doc) : null;
    },
    async delete(id) {
      return (await couriers.deleteOne({ _id: id })).deletedCount > 0;
    },
  };
}
