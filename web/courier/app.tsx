import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, onSessionEnded } from '../shared/api/errors.js';
import { LangContext } from '../shared/context.js';
import type { Lang } from '../shared/i18n.js';
import { courierApi, type Courier, type CourierOrder } from './api.js';
import { clearFixes, countFixes, keepFix } from './backlog.js';
import { coalesceSettings, createCoalescer, fixOf } from './coalesce.js';
import { CourierLink, type LinkState, type OrderEvent } from './live.js';
import { HomePage } from './pages/home.js';
import { SignedOutPage } from './pages/signed-out.js';
import { WelcomePage } from './pages/welcome.js';
import { CourierContext, storeLang, storeSnapshot, storedLang, storedSnapshot, type CourierState } from './state.js';
import { alertNewJob, unlockSound } from './ui/alert.js';

type Phase = 'welcome' | 'checking' | 'signed-out' | 'unreachable' | 'ready';

const isWelcome = () => location.pathname.replace(/\/+$/, '') === '/courier/welcome';
/** Only while the socket is down (its `order` frames bring the job): a slow read of the orders. */
const ORDERS_FALLBACK_POLL_MS = 60_000;
const ENDED = new Set(['INVALID_SESSION', 'INVALID_COURIER_TOKEN']);

export function App() {
  const [lang, setLangState] = useState<Lang>(storedLang);
  const [phase, setPhase] = useState<Phase>(isWelcome() ? 'welcome' : 'checking');
  const [courier, setCourier] = useState<Courier | null>(null);
  const [orders, setOrders] = useState<CourierOrder[]>([]);
  const [link, setLink] = useState<LinkState>('connecting');
  const [backlog, setBacklog] = useState(0);
  const [here, setHere] = useState<CourierState['here']>(null);
  const [geoError, setGeoError] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const linkRef = useRef<CourierLink | null>(null);
  const known = useRef(new Set<string>());
  const loaded = useRef(false);
  /** What is shown, for the socket's handlers (two frames may come before the next render). */
  const current = useRef<{ courier: Courier; orders: CourierOrder[] } | null>(null);

  useEffect(() => { document.documentElement.lang = lang === 'es' ? 'es-CL' : 'en'; }, [lang]);
  // The shell's static screen (rest/routes/web-apps.ts) holds the wait until the first answer.
  useEffect(() => { if (phase !== 'checking') document.getElementById('boot')?.remove(); }, [phase]);

  const endSession = useCallback(() => {
    linkRef.current?.stop();
    linkRef.current = null;
    storeSnapshot(null);
    void clearFixes().catch(() => undefined);
    setCourier(null);
    setOrders([]);
    setPhase('signed-out');
  }, []);
  useEffect(() => onSessionEnded(endSession), []);

  /** The job as now known: kept for a start without network; a job this phone had not seen yet (not on the first read) is announced. */
  const show = useCallback((me: Courier, active: CourierOrder[]) => {
    current.current = { courier: me, orders: active };
    setCourier(me);
    setOrders(active);
    storeSnapshot({ courier: me, orders: active });
    const fresh = active.filter((o) => !known.current.has(o.booking_id));
    for (const o of active) known.current.add(o.booking_id);
    if (fresh.length && loaded.current) {
      alertNewJob();
      setAnnouncement(`${Date.now()}`);
    }
    loaded.current = true;
  }, []);
  useEffect(() => { current.current = courier && { courier, orders }; }, [courier, orders]);

  const refresh = useCallback(async () => {
    const [me, active] = await Promise.all([courierApi.me(), courierApi.orders()]);
    show(me, active);
  }, []);

  /** Signed in: the socket's first check, or a stored snapshot when there is no network. */
  const start = useCallback(async () => {
    try {
      await refresh();
      setPhase('ready');
    } catch (error) {
      if (error instanceof ApiError && ENDED.has(error.code)) return endSession();
      const snapshot = storedSnapshot();
      if (!snapshot) return setPhase('unreachable');
      setCourier(snapshot.courier);
      setOrders(snapshot.orders);
      setPhase('ready');
    }
  }, []);
  useEffect(() => { if (phase === 'checking') void start(); }, [phase]);
  // Back online with a stored snapshot: read the real state.
  useEffect(() => {
    const online = () => { if (phase === 'ready' || phase === 'unreachable') void start(); };
    addEventListener('online', online);
    return () => removeEventListener('online', online);
  }, [phase]);

  // The socket's pushes: an order new, changed or gone; the courier's status.
  const onOrder = useCallback((event: OrderEvent) => {
    const now = current.current;
    if (!now) return;
    const others = now.orders.filter((o) => o.booking_id !== event.booking_id);
    const at = now.orders.findIndex((o) => o.booking_id === event.booking_id);
    if (!event.order) return show(now.courier, others);
    show(now.courier, at < 0 ? [...others, event.order] : now.orders.map((o) => (o.booking_id === event.booking_id ? event.order! : o)));
  }, []);
  const onCourierStatus = useCallback((status: Courier['status']) => {
    const now = current.current;
    if (now) show({ ...now.courier, status }, now.orders);
  }, []);

  // The socket while signed in.
  useEffect(() => {
    if (phase !== 'ready') return;
    const live = new CourierLink({
      state: setLink,
      // Back after a drop: an order may have left meanwhile (the socket pushes only what it saw go).
      ready: (again) => { if (again) void refresh().catch(() => undefined); },
      order: onOrder,
      courier: onCourierStatus,
      ended: () => void courierApi.me().catch(() => undefined),
      backlog: () => void countFixes().then(setBacklog, () => undefined),
    });
    linkRef.current = live;
    void countFixes().then(setBacklog, () => undefined);
    return () => {
      live.stop();
      if (linkRef.current === live) linkRef.current = null;
    };
  }, [phase]);

  // A safety net while the socket is down but the network is not (a proxy that refuses sockets):
  // the orders are read every ORDERS_FALLBACK_POLL_MS on duty. While it is live, its frames suffice.
  useEffect(() => {
    if (phase !== 'ready' || !courier || courier.status === 'off_duty' || link === 'live') return;
    const timer = setInterval(() => { if (navigator.onLine) void refresh().catch(() => undefined); }, ORDERS_FALLBACK_POLL_MS);
    return () => clearInterval(timer);
  }, [phase, courier?.status === 'off_duty', link === 'live']);

  // Positions while on duty: every fix kept by the coalescer goes to the device, then to the socket.
  const onDuty = phase === 'ready' && !!courier && courier.status !== 'off_duty';
  useEffect(() => {
    if (!onDuty) return;
    if (!('geolocation' in navigator)) {
      setGeoError('unavailable');
      return;
    }
    const keep = createCoalescer(coalesceSettings(document.getElementById('app')));
    const watch = navigator.geolocation.watchPosition(
      (position) => {
        const fix = fixOf(position);
        setHere({ lat: fix.lat, lng: fix.lng, ...(fix.accuracy_m !== undefined && { accuracy_m: fix.accuracy_m }) });
        setGeoError(null);
        if (!keep(fix)) return;
        void keepFix(fix).then(() => {
          linkRef.current?.flush();
          return countFixes().then(setBacklog);
        }).catch(() => undefined);
      },
      (error) => setGeoError(error.code === error.PERMISSION_DENIED ? 'denied' : 'unavailable'),
      { enableHighAccuracy: true, maximumAge: 5000, timeout: 60_000 },
    );
    return () => navigator.geolocation.clearWatch(watch);
  }, [onDuty]);

  const state = useMemo<CourierState | null>(() => (courier ? {
    lang, courier, orders, link, backlog, here, geoError,
    setLang: (next) => { storeLang(next); setLangState(next); },
    setDuty: async (next, shiftEndsAt) => {
      unlockSound();
      const updated = await courierApi.duty(next, shiftEndsAt);
      setCourier(updated);
      storeSnapshot({ courier: updated, orders });
    },
    reloadOrders: refresh,
    signOut: async () => {
      await courierApi.signOut().catch(() => undefined);
      endSession();
    },
  } : null), [lang, courier, orders, link, backlog, here, geoError]);

  const setLang = (next: Lang) => { storeLang(next); setLangState(next); };
  let content;
  if (phase === 'welcome') content = <WelcomePage setLang={setLang} onSignedIn={() => setPhase('checking')} />;
  else if (phase === 'signed-out') content = <SignedOutPage setLang={setLang} />;
  else if (phase === 'unreachable') content = <SignedOutPage setLang={setLang} unreachable onRetry={() => setPhase('checking')} />;
  else if (phase === 'checking') content = document.getElementById('boot') ? null : <main id="main" aria-busy="true" />;
  else if (!state) content = <main id="main" aria-busy="true" />;
  else content = <CourierContext.Provider value={state}><HomePage announcement={announcement} /></CourierContext.Provider>;
  return <LangContext.Provider value={lang}>{content}</LangContext.Provider>;
}
