import type { ProofContentType } from '../domain/proofs/images.js';

/** How a proof image is re-encoded: its long side at most `maxSide` px, lossy formats at `quality`. */
export interface ReencodeOptions {
  data: Buffer;
  contentType: ProofContentType;
  maxSide: number;
  quality: number;
  /** Images with more pixels than this are refused undecoded (a decompression bomb). */
  maxInputPixels: number;
}

/** A refusal of the bytes themselves (not an image the library can decode): the caller answers 415. */
export class UndecodableImageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UndecodableImageError';
  }
}

/**
 * Decodes an image and encodes it anew in the same format (issue #39): only pixels cross over, so
 * no metadata block, no private chunk and nothing appended after the image survives. The work runs
 * off the event loop (the library's own threads); throws UndecodableImageError for bad bytes.
 */
export type ReencodeImage = (options: ReencodeOptions) => Promise<{ data: Buffer; width: number; height: number }>;
