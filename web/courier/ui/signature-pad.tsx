import { useEffect, useRef } from 'preact/hooks';
import { useStrings, type Strings } from '../../shared/i18n.js';

const S: Strings<'clear' | 'hint'> = {
  es: { clear: 'Borrar firma', hint: 'Pide al cliente que firme con el dedo dentro del recuadro.' },
  en: { clear: 'Clear signature', hint: 'Ask the customer to sign with a finger inside the box.' },
};

/**
 * A signature drawn with a finger, a pen or a mouse (pointer events) on a canvas sized to the
 * device's pixels; `onChange(canvas | null)`: the drawing, or null once cleared.
 */
export function SignaturePad({ label, onChange }: { label: string; onChange: (canvas: HTMLCanvasElement | null) => void }) {
  const t = useStrings(S);
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const el = canvas.current!;
    const ratio = Math.min(2, window.devicePixelRatio || 1);
    el.width = Math.round(el.clientWidth * ratio);
    el.height = Math.round(el.clientHeight * ratio);
    const ctx = el.getContext('2d')!;
    ctx.scale(ratio, ratio);
    ctx.lineWidth = 2.5;
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.strokeStyle = '#0f172a';
    clear(el);
    let drawing = false;
    const point = (e: PointerEvent) => {
      const box = el.getBoundingClientRect();
      return { x: e.clientX - box.left, y: e.clientY - box.top };
    };
    const down = (e: PointerEvent) => {
      drawing = true;
      el.setPointerCapture(e.pointerId);
      const p = point(e);
      ctx.beginPath();
      ctx.moveTo(p.x, p.y);
      e.preventDefault();
    };
    const move = (e: PointerEvent) => {
      if (!drawing) return;
      const p = point(e);
      ctx.lineTo(p.x, p.y);
      ctx.stroke();
      e.preventDefault();
    };
    const up = () => {
      if (!drawing) return;
      drawing = false;
      onChange(el);
    };
    el.addEventListener('pointerdown', down);
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerup', up);
    el.addEventListener('pointercancel', up);
    return () => {
      el.removeEventListener('pointerdown', down);
      el.removeEventListener('pointermove', move);
      el.removeEventListener('pointerup', up);
      el.removeEventListener('pointercancel', up);
    };
  }, []);
  const clear = (el: HTMLCanvasElement) => {
    const ctx = el.getContext('2d')!;
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, el.width, el.height);
    ctx.restore();
  };
  return (
    <div class="signature">
      <p class="note" id="signature-hint">{t.hint}</p>
      <canvas ref={canvas} id="signature-pad" class="signature-pad" role="img" aria-label={label} aria-describedby="signature-hint" />
      <button type="button" class="secondary" id="signature-clear" onClick={() => { clear(canvas.current!); onChange(null); }}>{t.clear}</button>
    </div>
  );
}
