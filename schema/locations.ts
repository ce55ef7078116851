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

/** GraphQL location input → the REST wire form, validated later by the same zod schema. */
export function toWireLocation(input: LocationArg | null | undefined): unknown {
  if (!input) return undefined;
  if (input.address == null) return input.coords ?? {};
  return Object.fromEntries(
    Object.entries({ address: input.address, number: input.number, instructions: input.instructions, coords: input.coords }).filter(
      ([, v]) => v != null,
    ),
  );
}
