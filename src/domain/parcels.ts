import { z } from 'zod';

/** A parcel's outer size in centimetres, as a merchant measures it. */
export const dimensionsSchema = z.strictObject({
  lengthCm: z.number().positive().max(1000),
  widthCm: z.number().positive().max(1000),
  heightCm: z.number().positive().max(1000),
});
export type Dimensions = z.output<typeof dimensionsSchema>;

/** What the vehicle choice reads of a parcel besides its weight; null when nothing was measured. */
export interface ParcelSize {
  /** Litres (1,000 cm³). */
  volumeL: number;
  /** The longest side, in cm: what must fit through a box's opening or across a bike's rack. */
  longestCm: number;
}

const litres = (d: Dimensions) => (d.lengthCm * d.widthCm * d.heightCm) / 1000;
const longest = (d: Dimensions) => Math.max(d.lengthCm, d.widthCm, d.heightCm);

/** An item's size fields as merchants send them in `items` (snake_case, kept as given). */
const itemSizeSchema = z.object({ length_cm: z.number(), width_cm: z.number(), height_cm: z.number(), quantity: z.number().default(1) });

/**
 * The size the vehicle choice uses: the order's (or quote's) own dimensions when given, else the sum
 * of the items measured on all three sides (quantity times each); items not measured add nothing.
 */
export function parcelSize(options: { dimensions?: Dimensions | null; items?: ReadonlyArray<Record<string, unknown>> }): ParcelSize | null {
  if (options.dimensions) return { volumeL: round(litres(options.dimensions)), longestCm: longest(options.dimensions) };
  let volumeL = 0;
  let longestCm = 0;
  for (const item of options.items ?? []) {
    const sized = itemSizeSchema.safeParse(item);
    if (!sized.success) continue;
    const d = { lengthCm: sized.data.length_cm, widthCm: sized.data.width_cm, heightCm: sized.data.height_cm };
    volumeL += litres(d) * sized.data.quantity;
    longestCm = Math.max(longestCm, longest(d));
  }
  return longestCm > 0 ? { volumeL: round(volumeL), longestCm } : null;
}

const round = (n: number) => Math.round(n * 1000) / 1000;
