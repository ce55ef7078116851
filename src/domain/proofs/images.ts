/**
 * Proof images (issues #27, #39): the type by the bytes' magic, checked against the declared one
 * before anything is decoded. What is stored is not these bytes but the image re-encoded by the
 * ReencodeImage port (ports/image-encoder.ts, through service.ts): the byte-level metadata strippers this file once held are gone,
 * since a re-encoded image carries no metadata, private chunk or trailing data at all.
 */
import { AppError } from '../errors.js';

export const PROOF_CONTENT_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export type ProofContentType = (typeof PROOF_CONTENT_TYPES)[number];

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The image type the bytes say they are, or null. */
export function sniffImageType(data: Buffer): ProofContentType | null {
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  if (data.length >= 8 && data.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  if (data.length >= 12 && data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return null;
}

/**
 * The declared Content-Type, checked: one of the three, and what the bytes' magic says. Cheap, and
 * before any decoding, so a body of another kind costs no decoder time.
 */
export function checkProofImageType(options: { data: Buffer; declared: string | undefined }): ProofContentType {
  const declared = options.declared?.split(';')[0]?.trim().toLowerCase();
  if (!declared || !(PROOF_CONTENT_TYPES as readonly string[]).includes(declared)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be image/jpeg, image/png or image/webp');
  }
  const sniffed = sniffImageType(options.data);
  if (!sniffed) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The body is not a JPEG, PNG or WebP image');
  if (sniffed !== declared) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `The body is ${sniffed}, not the declared ${declared}`);
  return sniffed;
}
