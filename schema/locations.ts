import { builder } from './builder.js';

/** Coordinates or an address (with optional coordinates), like the REST Address resource. */
export const LatLngInput = builder.inputType('LatLngInput', {
  fields: (t) => ({ lat: t.float({ required: true }), lng: t.float({ required: true }) }),
});

export const LocationInput = builder.inputType('LocationInput', {
  fields: (t) => ({
    address: t.string(),
    number: t.string(),
    instructions: t.string(),
    coords: t.field({ type: LatLngInput }),
  }),
});

export const LatLngRef = builder.objectRef<{ lat: number; lng: number }>('LatLng').implement({
  fields: (t) => ({ lat: t.exposeFloat('lat'), lng: t.exposeFloat('lng') }),
});

type LocationArg = { address?: string | null; number?: string | null; instructions?: string | null; coords?: { lat: number; lng: number } | null };

/**
 * GraphQL location input → the domain's location input (an Address, or bare coordinates when no
 * address is given), validated with the command that carries it. GraphQL inputs have no unions.
 */
export function toLocationInput(input: LocationArg | null | undefined): unknown {
  if (!input) return undefined;
  return input.address == null ? (input.coords ?? {}) : { address: input.address, number: input.number, instructions: input.instructions, coords: input.coords };
}
