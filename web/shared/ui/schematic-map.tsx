import type { MapPoint } from './map.js';

const COLORS: Record<MapPoint['kind'], string> = { pickup: '#1d4ed8', dropoff: '#b91c1c', courier: '#047857' };
const SIZE = { width: 360, height: 200, margin: 28 };

/**
 * The points of a delivery without street tiles (MAP_TILE_URL=none): an SVG drawn from lat/lng
 * (equirectangular, north up), the line from pickup to drop-off, no request anywhere. No Leaflet.
 */
export function SchematicMap({ points, label }: { points: MapPoint[]; label: string }) {
  const courier = points.find((p) => p.kind === 'courier');
  const lats = points.map((p) => p.lat);
  const lngs = points.map((p) => p.lng);
  const midLat = (Math.min(...lats) + Math.max(...lats)) / 2;
  const kx = Math.cos((midLat * Math.PI) / 180);
  const spanX = Math.max(1e-4, (Math.max(...lngs) - Math.min(...lngs)) * kx);
  const spanY = Math.max(1e-4, Math.max(...lats) - Math.min(...lats));
  const scale = Math.min((SIZE.width - 2 * SIZE.margin) / spanX, (SIZE.height - 2 * SIZE.margin) / spanY);
  const cx = (Math.min(...lngs) + Math.max(...lngs)) / 2;
  const at = (p: MapPoint) => ({ x: SIZE.width / 2 + (p.lng - cx) * kx * scale, y: SIZE.height / 2 - (p.lat - midLat) * scale });
  const route = points.filter((p) => p.kind !== 'courier').map(at);
  return (
    <figure class="map schematic" data-map="schematic">
      <svg class="map-canvas" viewBox={`0 0 ${SIZE.width} ${SIZE.height}`} role="img" aria-label={label} data-courier={courier ? `${courier.lat},${courier.lng}` : ''}>
        <rect width={SIZE.width} height={SIZE.height} fill="#e2e8f0" />
        {route.length === 2 && <line x1={route[0]!.x} y1={route[0]!.y} x2={route[1]!.x} y2={route[1]!.y} stroke="#475569" stroke-width="2" stroke-dasharray="4 6" />}
        {points.map((p) => {
          const { x, y } = at(p);
          return <circle key={p.kind} cx={x} cy={y} r={p.kind === 'courier' ? 9 : 7} fill={COLORS[p.kind]} fill-opacity="0.85" stroke="#fff" stroke-width="2" />;
        })}
      </svg>
      <figcaption class="legend">
        {points.map((p) => <span key={p.kind} class={`dot ${p.kind}`}>{p.label}</span>)}
      </figcaption>
    </figure>
  );
}

/** Street tiles configured for this server (the shell's data-tile-url)? */
export const hasTiles = () => !!document.getElementById('app')?.dataset.tileUrl;
