import 'leaflet/dist/leaflet.css';
// The room's look is the console's stylesheet; ops.css adds only what its pages need.
import '../console/styles.css';
import './ops.css';
import { render } from 'preact';
import { App } from './app.js';

render(<App />, document.getElementById('app')!);
