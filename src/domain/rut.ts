/** Chilean RUT: modulo-11 check digit (K for 10, 0 for 11). */
const RUT_FORMAT = /^(\d{1,2}(\.\d{3}){2}|\d{7,8})-?[0-9Kk]$/;

export function computeRutCheckDigit(body: string): string {
  let sum = 0;
  let factor = 2;
  for (let i = body.length - 1; i >= 0; i--) {
    sum += Number(body[i]) * factor;
    factor = factor === 7 ? 2 : factor + 1;
  }
  const r = 11 - (sum % 11);
  return r === 11 ? '0' : r === 10 ? 'K' : String(r);
}

/** Returns the normalised RUT (`12345678-5`, K uppercase) or null when format or check digit is wrong. */
export function normalizeRut(input: string): string | null {
  const trimmed = input.trim();
  if (!RUT_FORMAT.test(trimmed)) return null;
  const compact = trimmed.replace(/[.-]/g, '').toUpperCase();
  const body = compact.slice(0, -1).replace(/^0+/, '');
  const dv = compact.slice(-1);
  if (body.length < 7 || computeRutCheckDigit(body) !== dv) return null;
  return `${body}-${dv}`;
}

export function formatRutDotted(normalised: string): string {
  const [body = '', dv = ''] = normalised.split('-');
  return `${body.replace(/\B(?=(\d{3})+(?!\d))/g, '.')}-${dv}`;
}
