/**
 * The RUT check digit, for forms to flag a typo at once (the apps use the public API only, so this
 * is a copy of src/domain/rut.ts's rule; test/courier/rut-form.test.ts keeps the two in agreement).
 * The server still decides.
 */
const RUT_FORMAT = /^(\d{1,2}(\.\d{3}){2}|\d{7,8})-?[0-9Kk]$/;

export function isValidRut(input: string): boolean {
  const trimmed = input.trim();
  if (!RUT_FORMAT.test(trimmed)) return false;
  const compact = trimmed.replace(/[.-]/g, '').toUpperCase();
  const body = compact.slice(0, -1).replace(/^0+/, '');
  if (body.length < 7) return false;
  let sum = 0;
  let factor = 2;
  for (let i = body.length - 1; i >= 0; i--) {
    sum += Number(body[i]) * factor;
    factor = factor === 7 ? 2 : factor + 1;
  }
  const r = 11 - (sum % 11);
  return compact.slice(-1) === (r === 11 ? '0' : r === 10 ? 'K' : String(r));
}
