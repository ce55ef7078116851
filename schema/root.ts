import { builder } from './builder.js';
import { AppError, GeofenceError, ParcelCapacityError } from '../src/domain/errors.js';

builder.queryType({});
builder.mutationType({});

builder.scalarType('DateTime', {
  description: 'ISO 8601 date-time string',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) throw new AppError('VALIDATION_ERROR', 'DateTime must be ISO 8601');
    return value;
  },
});

const FieldErrorRef = builder.objectRef<{ field: string; message: string }>('FieldError').implement({
  fields: (t) => ({ field: t.exposeString('field'), message: t.exposeString('message') }),
});

/** Expected failures of mutations come back as this typed result, with the REST error code. */
builder.objectType(AppError, {
  name: 'AppError',
  fields: (t) => ({
    code: t.exposeString('code'),
    message: t.exposeString('message'),
    fields: t.field({ type: [FieldErrorRef], resolve: (e) => e.fields ?? [] }),
  }),
});

/** The geofence refusal of a delivery, with its measurements as fields (not only in the message). */
builder.objectType(GeofenceError, {
  name: 'GeofenceError',
  fields: (t) => ({
    code: t.exposeString('code'),
    message: t.exposeString('message'),
    fields: t.field({ type: [FieldErrorRef], resolve: (e) => e.fields ?? [] }),
    distanceM: t.exposeFloat('distanceM', { description: 'Great-circle metres from the reported position to the drop-off.' }),
    radiusM: t.exposeFloat('radiusM', { description: 'The geofence radius applied, in metres.' }),
  }),
});

/** A parcel no vehicle carries, with the largest vehicle's limits as fields. */
builder.objectType(ParcelCapacityError, {
  name: 'ParcelCapacityError',
  fields: (t) => ({
    code: t.exposeString('code'),
    message: t.exposeString('message'),
    fields: t.field({ type: [FieldErrorRef], resolve: (e) => e.fields ?? [] }),
    vehicleType: t.string({ description: 'The largest vehicle class.', resolve: (e) => e.limits.vehicleType }),
    maxKg: t.float({ resolve: (e) => e.limits.maxKg }),
    maxVolumeL: t.float({ nullable: true, description: 'Litres; null: not limited.', resolve: (e) => e.limits.maxVolumeL }),
    maxLengthCm: t.float({ nullable: true, description: 'The longest side that fits; null: not limited.', resolve: (e) => e.limits.maxLengthCm }),
  }),
});
