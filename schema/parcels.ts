import type { Dimensions } from '../src/domain/parcels.js';
import { builder } from './builder.js';

/** A parcel's outer size in cm (orders and quotes); a size too big for the weight's vehicle picks a larger one. */
export const DimensionsInput = builder.inputType('DimensionsInput', {
  fields: (t) => ({ lengthCm: t.float({ required: true }), widthCm: t.float({ required: true }), heightCm: t.float({ required: true }) }),
});

export const DimensionsRef = builder.objectRef<Dimensions>('Dimensions').implement({
  fields: (t) => ({ lengthCm: t.exposeFloat('lengthCm'), widthCm: t.exposeFloat('widthCm'), heightCm: t.exposeFloat('heightCm') }),
});
