import 'leaflet/dist/leaflet.css';
import './styles.css';
import { render } from 'preact';
import { App } from './app.js';

render(<App />, document.getElementById('app')!);
// The moment the app first drew itself (bench/courier-app.ts reads it).
performance.mark('courier-first-render');

// Installable and openable without a network: the worker keeps the shell (web/courier/sw.ts).
if ('serviceWorker' in navigator) {
  addEventListener('load', () => void navigator.serviceWorker.register('/courier/sw.js', { scope: '/courier' }).catch(() => undefined));
}
