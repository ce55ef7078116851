import L from 'leaflet';
import { useEffect, useRef } from 'preact/hooks';
import { escapeHtml, mapText } from './map-text.js';

export interface MapPoint { lat: number; lng: number; kind: 'pickup' | 'dropoff' | 'courier'; label: string }

const COLORS: Record<MapPoint['kind'], string> = { pickup: '#1d4ed8', dropoff: '#b91c1c', courier: '#047857' };

/** The tile server the service is configured with (MAP_TILE_URL), from the app shell; none: no tiles. */
function tiles(): { url: string; attribution: string } | null {
  const root = document.getElementById('app');
  const url = root?.dataset.tileUrl ?? '';
  return url ? { url, attribution: root?.dataset.attribution ?? '' } : null;
}

/**
 * Leaflet with vector markers (no marker images). Without tiles (MAP_TILE_URL=none, or offline)
 * the points still show on a blank plane, with the line between pickup and drop-off. `caption`
 * replaces the per-point legend (a fleet of many couriers).
 */
export function DeliveryMap({ points, label, caption }: { points: MapPoint[]; label: string; caption?: string }) {
  const element = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const layer = useRef<L.LayerGroup | null>(null);

  useEffect(() => {
    const m = L.map(element.current!, { zoomControl: true, attributionControl: true });
    const source = tiles();
    if (source) L.tileLayer(source.url, { attribution: escapeHtml(source.attribution), maxZoom: 19 }).addTo(m);
    layer.current = L.layerGroup().addTo(m);
    map.current = m;
    return () => m.remove();
  }, []);

  const key = JSON.stringify(points);
  useEffect(() => {
    const m = map.current;
    const group = layer.current;
    if (!m || !group) return;
    group.clearLayers();
    for (const p of points) {
      L.circleMarker([p.lat, p.lng], { radius: p.kind === 'courier' ? 9 : 7, color: COLORS[p.kind], fillOpacity: 0.85 }).bindTooltip(mapText(p.label)).addTo(group);
    }
    const route = points.filter((p) => p.kind !== 'courier').map((p) => [p.lat, p.lng] as [number, number]);
    if (route.length === 2) L.polyline(route, { color: '#475569', dashArray: '4 6', weight: 2 }).addTo(group);
    if (points.length) m.fitBounds(L.latLngBounds(points.map((p) => [p.lat, p.lng] as [number, number])).pad(0.3), { maxZoom: 16 });
  }, [key]);

  const courier = points.find((p) => p.kind === 'courier');
  return (
    <figure class="map">
      <div ref={element} class="map-canvas" role="region" aria-label={label} data-courier={courier ? `${courier.lat},${courier.lng}` : ''} />
      <figcaption class="legend">
        {caption ?? points.map((p) => <span key={p.kind} class={`dot ${p.kind}`}>{p.label}</span>)}
      </figcaption>
    </figure>
  );
}
