import L from 'leaflet';
import { useEffect, useRef } from 'preact/hooks';
import { operatorSubscribe } from '../../shared/api/socket.js';
import { graphql, type ResultOf } from '../../shared/graphql.js';
import { escapeHtml, mapText } from '../../shared/ui/map-text.js';

const FLEET = graphql(`subscription OpsFleet($mode: Mode) { adminFleet(mode: $mode) {
  at couriers { courierId name dutyStatus active location { lat lng } locationAt } } }`);
export type FleetCourier = ResultOf<typeof FLEET>['adminFleet']['couriers'][number];
export interface Seed { courierId: string; name: string; lat: number; lng: number }

const COLORS: Record<string, string> = { available: '#047857', busy: '#b45309', off_duty: '#64748b' };

/** Where the tiles come from (MAP_TILE_URL, from the app shell), as in the shared DeliveryMap. */
function tiles(): { url: string; attribution: string } | null {
  const root = document.getElementById('app');
  const url = root?.dataset.tileUrl ?? '';
  return url ? { url, attribution: root?.dataset.attribution ?? '' } : null;
}

/**
 * The live fleet: one Leaflet marker per courier, moved in place. Frames (one a second, from
 * `adminFleet`) are merged per courier and applied once per animation frame, so a burst of frames
 * or a background tab costs one pass over the couriers that changed, never a re-render of the map.
 * `onBatch` hands the same batch to the page (its table of couriers).
 */
export function FleetMap(props: { mode: 'live' | 'test' | null; seed: Seed[]; label: string; caption: string; onBatch?: (batch: FleetCourier[]) => void }) {
  const element = useRef<HTMLDivElement>(null);
  const onBatch = useRef(props.onBatch);
  onBatch.current = props.onBatch;

  useEffect(() => {
    const canvas = element.current!;
    const map = L.map(canvas, { zoomControl: true, attributionControl: true });
    const source = tiles();
    if (source) L.tileLayer(source.url, { attribution: escapeHtml(source.attribution), maxZoom: 19 }).addTo(map);
    const markers = new Map<string, L.CircleMarker>();
    const place = (id: string, name: string, at: L.LatLngExpression, status: string) => {
      const marker = markers.get(id);
      if (marker) return void marker.setLatLng(at).setStyle({ color: COLORS[status] ?? COLORS.available });
      markers.set(id, L.circleMarker(at, { radius: 8, color: COLORS[status] ?? COLORS.available, fillOpacity: 0.85 }).bindTooltip(mapText(name)).addTo(map));
    };
    for (const s of props.seed) place(s.courierId, s.name, [s.lat, s.lng], 'available');
    if (props.seed.length) map.fitBounds(L.latLngBounds(props.seed.map((s) => [s.lat, s.lng] as [number, number])).pad(0.3), { maxZoom: 16 });
    else map.setView([-33.4489, -70.6693], 12);

    const pending = new Map<string, FleetCourier>();
    let scheduled = 0;
    // With nothing listed to start from, the first batch frames the map once (never again: it would jump).
    let framed = props.seed.length > 0;
    const flush = () => {
      scheduled = 0;
      const batch = [...pending.values()];
      pending.clear();
      for (const c of batch) {
        if (!c.active) {
          markers.get(c.courierId)?.remove();
          markers.delete(c.courierId);
        } else if (c.location) {
          place(c.courierId, c.name, [c.location.lat, c.location.lng], c.dutyStatus);
        }
      }
      if (!framed && markers.size) {
        framed = true;
        map.fitBounds(L.latLngBounds([...markers.values()].map((m) => m.getLatLng())).pad(0.2), { maxZoom: 16 });
      }
      canvas.dataset.markers = String(markers.size);
      onBatch.current?.(batch);
    };
    const stop = operatorSubscribe(FLEET, { mode: props.mode }, (data) => {
      for (const c of data.adminFleet.couriers) pending.set(c.courierId, c);
      scheduled ||= requestAnimationFrame(flush);
    });
    canvas.dataset.markers = String(markers.size);
    return () => {
      stop();
      cancelAnimationFrame(scheduled);
      map.remove();
    };
  }, [props.mode]);

  const first = props.seed[0];
  return (
    <figure class="map">
      <div ref={element} class="map-canvas" id="fleet-map" role="region" aria-label={props.label} data-courier={first ? `${first.lat},${first.lng}` : ''} />
      <figcaption class="legend">{props.caption}</figcaption>
    </figure>
  );
}
