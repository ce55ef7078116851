// Customer tracking page: the first snapshot and every word come in the page's boot data (rendered
// by the server in the customer's language), then one live socket (a snapshot, then small
// status/eta/position messages); REST is polled only while sockets do not get through. Plain JS, no build step.
// Every date is shown in Santiago's time, with the day whenever it is not today.
// The map is Leaflet (served by this server) over the configured street tiles, or a schematic SVG
// drawn from lat/lng when there are no tiles or they cannot be loaded.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const boot = JSON.parse($('boot').textContent);
  const T = boot.strings;
  // The statuses come from the domain's vocabulary in the boot data (src/domain/vocabulary.ts), never a list here.
  const STEPS = boot.vocabulary.steps.map((s) => [s, T.steps[s]]);
  const HEADLINES = T.headlines;
  const VEHICLES = T.vehicles;
  const FINAL = new Set(boot.vocabulary.terminal);
  /** States off the way to the door: the steps reached, then this one (cancelled, a failed attempt and its return). */
  const OFF_PATH = new Set(boot.vocabulary.offPath);
  const TIME_ZONE = 'America/Santiago';
  const MAP = { width: 360, height: 220, margin: 34 };
  const BACKOFF = { firstMs: 1000, maxMs: 30000 };
  const CLOSE_NOT_FOUND = 4404;
  /** Sockets that closed before their first snapshot, in a row, before the page polls REST. */
  const SOCKET_FAILURES_BEFORE_POLLING = 2;
  const POLL_MS = 5000;
  const TILE_WAIT_MS = 6000;
  const COLORS = { pickup: '#2563eb', dropoff: '#dc2626', courier: '#f59e0b', route: '#0f766e' };

  const reference = boot.reference;
  /** The link's capability (`?k=`): the socket and any poll are budgeted per link with it. */
  const capability = boot.capability;
  const withCapability = (path) => (capability ? `${path}?k=${encodeURIComponent(capability)}` : path);
  const fill = (text, values) => text.replace(/\{(\w+)\}/g, (all, name) => (name in values ? String(values[name]) : all));

  /** The last snapshot's tracking object, kept current by status, eta and position messages. */
  let tracking = null;
  let courierAt = null;
  let socket = null;
  let attempt = 0;
  let retryTimer = null;
  let finished = false;
  let socketFailures = 0;
  let pollTimer = null;
  /** Leaflet's map and layers once started; null for the schematic map. */
  let street = null;
  let mapStarted = false;

  // --- Formatting ------------------------------------------------------------------------------

  // Santiago's calendar fields of an instant; names come from the catalog, not the browser's locale.
  const fields = new Intl.DateTimeFormat('en-US', {
    timeZone: TIME_ZONE, year: 'numeric', month: 'numeric', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
  });
  function santiago(date) {
    const parts = {};
    for (const part of fields.formatToParts(date)) parts[part.type] = part.value;
    const year = Number(parts.year), month = Number(parts.month), day = Number(parts.day);
    return { year, month, day, dayNumber: Date.UTC(year, month - 1, day) / 86400000, time: `${parts.hour}:${parts.minute}` };
  }
  /** "11:01" today, "mañana 11:01" / "tomorrow 11:01", "ayer 22:15", else "sáb 30 nov 11:01" / "Sat 30 Nov 11:01". */
  function formatTime(iso) {
    if (!iso) return '';
    const at = santiago(new Date(iso));
    const days = at.dayNumber - santiago(new Date()).dayNumber;
    if (days === 0) return at.time;
    if (days === 1) return `${T.tomorrow} ${at.time}`;
    if (days === -1) return `${T.yesterday} ${at.time}`;
    const weekday = T.weekdays[new Date(at.dayNumber * 86400000).getUTCDay()];
    return fill(T.dateOrder, { weekday, day: at.day, month: T.months[at.month - 1], time: at.time });
  }
  function minutesFromNow(iso) {
    const mins = Math.round((Date.parse(iso) - Date.now()) / 60000);
    if (!Number.isFinite(mins)) return '';
    if (mins <= 1) return T.anyMinute;
    return mins < 90 ? fill(T.inMinutes, { n: mins }) : fill(T.inHours, { n: Math.round(mins / 60) });
  }
  function lastAt(status) {
    const entries = (tracking && tracking.timeline) || [];
    for (let i = entries.length - 1; i >= 0; i--) if (entries[i].status === status) return entries[i].at;
    return null;
  }
  /** Chilean mobiles read as +56 9 1234 5678; anything else is shown as stored. */
  function formatPhone(phone) {
    const match = /^\+569(\d{4})(\d{4})$/.exec(phone);
    return match ? `+56 9 ${match[1]} ${match[2]}` : phone;
  }
  function initials(name) {
    return name.split(/\s+/).filter(Boolean).slice(0, 2).map((w) => w[0].toUpperCase()).join('');
  }

  // --- Views -----------------------------------------------------------------------------------

  function show(view) {
    $('app').dataset.view = view;
    $('loading').hidden = view !== 'loading';
    $('not-found').hidden = view !== 'not-found';
    $('tracking').hidden = view !== 'tracking';
  }

  function setConnection(state, text) {
    const el = $('connection');
    el.dataset.state = state;
    el.textContent = text;
  }

  function renderStatus() {
    const { status } = tracking;
    const heading = $('status');
    heading.textContent = HEADLINES[status] || HEADLINES.unknown;
    heading.dataset.status = status;
    $('tracking-number').textContent = tracking.tracking_number;
    $('sandbox-badge').hidden = !tracking.is_test;

    const shop = boot.shop || T.theShop;
    let eta;
    if (status === 'completed') eta = fill(T.delivered, { when: formatTime(lastAt('completed')) });
    else if (status === 'cancelled') eta = fill(T.cancelled, { shop });
    else if (status === 'delivery_failed' || status === 'disposed') eta = fill(T.failed, { shop });
    else if (status === 'returning' || status === 'returned') eta = fill(T[status], { shop });
    else if (!(status in T.steps)) eta = T.unknown;
    else if (status === 'picked_up' || status === 'arrived_dropoff') {
      eta = fill(T.arriving, { when: formatTime(tracking.estimated_delivery_time), relative: minutesFromNow(tracking.estimated_delivery_time) });
    } else {
      eta = fill(T.estimated, { when: formatTime(tracking.estimated_delivery_time), pickup: formatTime(tracking.estimated_pickup_time) });
    }
    $('eta').textContent = eta;
  }

  function renderCourier() {
    const driver = tracking.driver;
    $('courier').hidden = !driver;
    $('no-courier').hidden = Boolean(driver);
    $('no-courier').textContent = FINAL.has(tracking.status) ? T.noCourier : T.findingCourier;
    if (!driver) return;
    $('courier-initials').textContent = initials(driver.name);
    $('courier-name').textContent = driver.name;
    $('courier-vehicle').textContent = `${VEHICLES[driver.vehicle_type] || driver.vehicle_type} · ${driver.vehicle_plate}`;
    // `phone` is the operation's call relay (never the courier's own number, issue #38), or '' when
    // there is none: then there is no number and no call button.
    const relay = (driver.phone || '').replace(/[^+\d]/g, '');
    $('courier-phone-number').textContent = relay ? formatPhone(relay) : '';
    $('courier-phone').href = relay ? `tel:${relay}` : '#';
    // Nothing to call about once the delivery is over.
    $('courier-phone').hidden = !relay || FINAL.has(tracking.status);
    $('courier-phone-number').hidden = !relay || FINAL.has(tracking.status);
  }

  function renderTimeline() {
    const list = $('timeline');
    list.replaceChildren();
    const status = tracking.status;
    const offPath = OFF_PATH.has(status);
    const reached = new Set(tracking.timeline.map((e) => e.status));
    const currentIndex = STEPS.findIndex(([s]) => s === status);
    STEPS.forEach(([step, label], index) => {
      if (offPath && !reached.has(step)) return;
      const item = document.createElement('li');
      item.dataset.step = step;
      item.className = index < currentIndex || (offPath && reached.has(step)) ? 'done' : index === currentIndex ? 'current' : 'upcoming';
      if (step === 'completed' && status === 'completed') item.className = 'done current';
      const name = document.createElement('span');
      name.className = 'step';
      name.textContent = label;
      const time = document.createElement('time');
      const at = index <= currentIndex || offPath ? lastAt(step) : null;
      if (at) {
        time.dateTime = at;
        time.textContent = formatTime(at);
      }
      item.append(name, time);
      list.append(item);
    });
    if (offPath) {
      const item = document.createElement('li');
      item.dataset.step = status;
      item.className = 'cancelled current';
      const name = document.createElement('span');
      name.className = 'step';
      name.textContent = T.steps[status];
      const time = document.createElement('time');
      time.textContent = formatTime(lastAt(status));
      item.append(name, time);
      list.append(item);
    }
  }

  // --- Map: an equirectangular fit of pickup, drop-off and courier into the SVG viewBox ----------

  function projection(points) {
    const lat0 = (points.reduce((sum, p) => sum + p.lat, 0) / points.length) * (Math.PI / 180);
    const kx = Math.cos(lat0);
    const xs = points.map((p) => p.lng * kx);
    const ys = points.map((p) => -p.lat);
    const minSpan = 0.004; // degrees (~400 m): a lone point is not zoomed to the street
    let minX = Math.min(...xs), maxX = Math.max(...xs), minY = Math.min(...ys), maxY = Math.max(...ys);
    if (maxX - minX < minSpan) { const c = (minX + maxX) / 2; minX = c - minSpan / 2; maxX = c + minSpan / 2; }
    if (maxY - minY < minSpan) { const c = (minY + maxY) / 2; minY = c - minSpan / 2; maxY = c + minSpan / 2; }
    const scale = Math.min((MAP.width - 2 * MAP.margin) / (maxX - minX), (MAP.height - 2 * MAP.margin) / (maxY - minY));
    const offsetX = (MAP.width - (maxX - minX) * scale) / 2 - minX * scale;
    const offsetY = (MAP.height - (maxY - minY) * scale) / 2 - minY * scale;
    const project = (p) => ({ x: p.lng * kx * scale + offsetX, y: -p.lat * scale + offsetY });
    // metres per SVG unit: one degree of latitude is ~111.32 km
    project.metresPerUnit = 111320 / scale;
    return project;
  }

  const round = (n) => Math.round(n * 10) / 10;
  function place(id, point) {
    $(id).setAttribute('transform', `translate(${round(point.x)} ${round(point.y)})`);
  }
  function setLine(id, a, b) {
    const line = $(id);
    line.setAttribute('x1', round(a.x));
    line.setAttribute('y1', round(a.y));
    line.setAttribute('x2', round(b.x));
    line.setAttribute('y2', round(b.y));
  }

  function renderScale(metresPerUnit) {
    const nice = [50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000, 20000];
    const metres = nice.filter((m) => m / metresPerUnit <= 90).pop() || nice[0];
    $('scale-line').setAttribute('x2', round(metres / metresPerUnit));
    $('scale-label').textContent = metres >= 1000 ? `${metres / 1000} km` : `${metres} m`;
  }

  function renderMap() {
    const { pickup, dropoff } = tracking;
    const showCourier = courierAt && !FINAL.has(tracking.status);
    const project = projection(showCourier ? [pickup, dropoff, courierAt] : [pickup, dropoff]);
    const a = project(pickup);
    const b = project(dropoff);
    setLine('route', a, b);
    place('pickup-marker', a);
    place('dropoff-marker', b);
    // Labels are comuna names from the geocoder; "coordinates"/"Destination" add nothing to the legend.
    const legendLabel = (label) => (label && label !== 'coordinates' && label !== 'Destination' ? label : '');
    $('pickup-label').textContent = legendLabel(pickup.label);
    $('dropoff-label').textContent = legendLabel(dropoff.label);
    const marker = $('courier-marker');
    const leg = $('courier-leg');
    if (showCourier) {
      const c = project(courierAt);
      place('courier-marker', c);
      marker.dataset.lat = String(courierAt.lat);
      marker.dataset.lng = String(courierAt.lng);
      marker.setAttribute('visibility', 'visible');
      // The courier's next stop: the pickup until the package is collected, then the drop-off.
      const beforePickup = tracking.status === 'assigned' || tracking.status === 'new';
      setLine('courier-leg', c, beforePickup ? a : b);
      leg.setAttribute('visibility', 'visible');
    } else {
      marker.setAttribute('visibility', 'hidden');
      leg.setAttribute('visibility', 'hidden');
    }
    renderScale(project.metresPerUnit);
    renderStreetMap(showCourier);
  }

  // --- Street map: Leaflet over the configured tiles, given up for the schematic if none load ----

  const escapeHtml = (text) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

  function setMapMode(mode) {
    $('map-card').dataset.map = mode;
    $('street-map').hidden = mode === 'schematic';
  }

  function startStreetMap() {
    const el = $('street-map');
    const url = el.dataset.tileUrl;
    if (!url || !window.L) return setMapMode('schematic');
    // Visible while loading: Leaflet measures its container to know which tiles to ask for.
    setMapMode('loading');
    const map = L.map(el, { scrollWheelZoom: false });
    map.attributionControl.setPrefix(false);
    const tiles = L.tileLayer(url, { maxZoom: 19, attribution: escapeHtml(el.dataset.attribution || '') });
    let loaded = false;
    const giveUp = () => {
      if (loaded || !street) return;
      street = null;
      map.remove();
      setMapMode('schematic');
    };
    tiles.on('tileload', () => {
      if (!loaded) setMapMode('streets');
      loaded = true;
    });
    tiles.on('tileerror', giveUp);
    setTimeout(giveUp, TILE_WAIT_MS);
    tiles.addTo(map);
    const dot = (color, radius, className) => L.circleMarker([0, 0], { radius, color: '#fff', weight: 2, fillColor: color, fillOpacity: 1, className });
    street = {
      map,
      route: L.polyline([], { color: COLORS.route, weight: 3, dashArray: '6 6' }).addTo(map),
      leg: L.polyline([], { color: COLORS.courier, weight: 3 }),
      pickup: dot(COLORS.pickup, 8, 'street-pickup').addTo(map),
      dropoff: dot(COLORS.dropoff, 8, 'street-dropoff').addTo(map),
      courier: dot(COLORS.courier, 9, 'street-courier'),
      fitted: false,
    };
  }

  function renderStreetMap(showCourier) {
    if (!street) return;
    const at = (p) => [p.lat, p.lng];
    const { pickup, dropoff } = tracking;
    street.pickup.setLatLng(at(pickup));
    street.dropoff.setLatLng(at(dropoff));
    street.route.setLatLngs([at(pickup), at(dropoff)]);
    const points = [at(pickup), at(dropoff)];
    if (showCourier) {
      const beforePickup = tracking.status === 'assigned' || tracking.status === 'new';
      street.courier.setLatLng(at(courierAt)).addTo(street.map);
      street.leg.setLatLngs([at(courierAt), beforePickup ? at(pickup) : at(dropoff)]).addTo(street.map);
      points.push(at(courierAt));
    } else {
      street.courier.remove();
      street.leg.remove();
    }
    const bounds = L.latLngBounds(points);
    // Fitted once, then only when someone leaves the view: the map does not jump on every report.
    if (!street.fitted || !street.map.getBounds().contains(bounds)) {
      street.map.fitBounds(bounds, { padding: [28, 28], maxZoom: 16 });
      street.fitted = true;
    }
  }

  function render() {
    if (!tracking) return;
    show('tracking');
    if (!mapStarted) {
      mapStarted = true;
      startStreetMap();
    }
    renderStatus();
    renderCourier();
    renderTimeline();
    renderMap();
  }

  // --- Messages --------------------------------------------------------------------------------

  function applySnapshot(snapshot) {
    tracking = snapshot;
    courierAt = tracking.driver && tracking.driver.location;
    finished = FINAL.has(tracking.status);
    if (finished) stopPolling();
    render();
  }

  function showNotFound() {
    finished = true;
    stopPolling();
    $('not-found-reference').textContent = reference;
    setConnection('off', T.notFound);
    show('not-found');
  }

  function onMessage(message) {
    if (message.type === 'snapshot') {
      socket.gotSnapshot = true;
      attempt = 0;
      socketFailures = 0;
      stopPolling();
      applySnapshot(message.tracking);
      setConnection('live', finished ? T.final : T.live);
    } else if (message.type === 'status' && tracking) {
      tracking.status = message.status;
      tracking.timeline.push({ status: message.status, at: message.at });
      finished = FINAL.has(message.status);
      render();
    } else if (message.type === 'eta' && tracking) {
      // The live ETA: the estimate follows the courier.
      tracking.estimated_delivery_time = message.estimated_delivery_time;
      renderStatus();
    } else if (message.type === 'position' && tracking) {
      courierAt = { lat: message.lat, lng: message.lng };
      renderMap();
    }
  }

  // --- The live socket, reconnecting with capped exponential backoff ---------------------------

  function connect() {
    clearTimeout(retryTimer);
    retryTimer = null;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(`${scheme}://${location.host}${withCapability(`/api/v1/tracking/${encodeURIComponent(reference)}/live`)}`);
    socket.addEventListener('message', (event) => {
      try {
        onMessage(JSON.parse(event.data));
      } catch {
        // a malformed frame is ignored; the next snapshot repairs the view
      }
    });
    socket.addEventListener('close', (event) => {
      const gotSnapshot = Boolean(socket && socket.gotSnapshot);
      socket = null;
      if (event.code === CLOSE_NOT_FOUND) return showNotFound();
      if (finished) return setConnection('off', T.final);
      // A proxy that refuses sockets: keep trying them, and meanwhile ask REST now and then.
      if (!gotSnapshot && ++socketFailures >= SOCKET_FAILURES_BEFORE_POLLING) startPolling();
      scheduleReconnect();
    });
  }

  // --- REST: the first render, and polling while sockets fail ----------------------------------

  async function fetchSnapshot() {
    try {
      const res = await fetch(withCapability(`/api/v1/tracking/${encodeURIComponent(reference)}`), { headers: { accept: 'application/json' } });
      if (res.status === 404) return showNotFound();
      if (!res.ok) return;
      const body = await res.json();
      delete body.success;
      // A socket snapshot that arrived meanwhile is at least as new.
      if (!(socket && socket.gotSnapshot) && !(finished && tracking)) applySnapshot(body);
    } catch {
      // offline: the socket or the next poll tries again
    }
  }

  function startPolling() {
    if (pollTimer || finished) return;
    pollTimer = setInterval(fetchSnapshot, POLL_MS);
    fetchSnapshot();
  }

  function stopPolling() {
    clearInterval(pollTimer);
    pollTimer = null;
  }

  function scheduleReconnect() {
    const base = Math.min(BACKOFF.maxMs, BACKOFF.firstMs * 2 ** attempt);
    const delay = Math.round(base / 2 + Math.random() * (base / 2));
    attempt++;
    if (pollTimer) setConnection('polling', fill(T.polling, { s: POLL_MS / 1000 }));
    else setConnection('reconnecting', fill(T.reconnecting, { s: Math.ceil(delay / 1000) }));
    retryTimer = setTimeout(connect, delay);
  }

  /** Back online or back on screen: try now instead of waiting out the backoff. */
  function reconnectNow() {
    if (!socket && retryTimer && !finished) connect();
  }

  window.addEventListener('online', reconnectNow);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') reconnectNow();
  });
  // Relative times ("in about 12 min") stay current.
  setInterval(() => tracking && renderStatus(), 30000);

  // The server's snapshot first (no request of its own), then the socket.
  if (boot.tracking) applySnapshot(boot.tracking);
  else {
    show('loading');
    fetchSnapshot();
  }
  connect();
})();
