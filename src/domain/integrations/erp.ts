import { z } from 'zod';
import { prepTimeSchema } from '../merchants.js';
import type { Quote } from '../quotes.js';

/** The ERP addon's rate request (Odoo `<provider>_rate_shipment` calls us with the partner address). */
export const erpRateSchema = z.object({
  partner_address: z.string().trim().min(3).max(300),
  weight_kg: z.number().min(0).max(100_000).optional(),
  prep_time_mins: prepTimeSchema.optional(),
});

const MINUTES_PER_DAY = 24 * 60;

/**
 * Odoo's rate_shipment result: success, price, error_message/warning_message (false when none),
 * plus estimated_days (0 = delivered today) and the prep time applied.
 */
export function toErpRate(quote: Quote) {
  return {
    success: true as const,
    price: quote.price,
    currency: quote.currency,
    estimated_days: Math.floor(quote.totalMins / MINUTES_PER_DAY),
    estimated_minutes: quote.totalMins,
    prep_time_mins: quote.prepTimeMins,
    vehicle_type: quote.vehicleType,
    error_message: false as const,
    warning_message: false as const,
  };
}
