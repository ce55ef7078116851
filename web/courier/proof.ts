/** Proof of delivery on the device: the photo made small before upload, the signature as a PNG. */

/** The photo's longest side after downscaling (px) and its JPEG quality. */
export const PHOTO = { maxSide: 1280, quality: 0.8 };

/** The size a w×h image gets with its longest side at most `maxSide` (never enlarged). */
export function fitWithin(width: number, height: number, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

const toBlob = (canvas: HTMLCanvasElement, type: string, quality?: number) =>
  new Promise<Blob>((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('canvas gave no image'))), type, quality));

/**
 * A camera picture as a JPEG of at most PHOTO.maxSide px on its longest side, upright (the browser
 * applies the EXIF orientation when decoding), with no metadata (a canvas keeps none). Also a small
 * data: URL to show it (the page's CSP takes data: images, not blob:).
 */
export async function downscalePhoto(file: Blob): Promise<{ jpeg: Blob; preview: string; width: number; height: number }> {
  const bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
  const size = fitWithin(bitmap.width, bitmap.height, PHOTO.maxSide);
  const canvas = document.createElement('canvas');
  canvas.width = size.width;
  canvas.height = size.height;
  const context = canvas.getContext('2d')!;
  context.drawImage(bitmap, 0, 0, size.width, size.height);
  bitmap.close();
  const jpeg = await toBlob(canvas, 'image/jpeg', PHOTO.quality);
  const thumb = fitWithin(size.width, size.height, 240);
  const small = document.createElement('canvas');
  small.width = thumb.width;
  small.height = thumb.height;
  small.getContext('2d')!.drawImage(canvas, 0, 0, thumb.width, thumb.height);
  return { jpeg, preview: small.toDataURL('image/jpeg', 0.7), ...size };
}

export const signaturePng = (canvas: HTMLCanvasElement) => toBlob(canvas, 'image/png');
