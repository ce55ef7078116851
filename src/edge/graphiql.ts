import { gzipSync } from 'node:zlib';
import type { GraphiQLOptions } from 'graphql-yoga';

/**
 * GraphiQL from this server's own files: Yoga's default page loads its bundle, styles and editor
 * workers from a CDN (blank offline). `@graphql-yoga/render-graphiql` ships the same files as
 * strings; the page links them here, under a path Express serves (rest/routes/pages.ts).
 */
export const GRAPHIQL_ASSETS_PATH = '/graphiql/assets';

/**
 * Each tab's own headers start empty: the key is entered once in the page's key bar, which every
 * request (HTTP and the graphql-ws connection) carries. A header typed into a tab still wins for
 * that tab's HTTP requests.
 */
export const GRAPHIQL_HEADERS = '{}';

/** The tabs a fresh browser opens with (GraphiQL keeps the user's own tabs after that). */
export const GRAPHIQL_EXAMPLES = [
  {
    query: `# A quote. Enter your test key (ak_test_…) once in the key bar above, then run (Ctrl+Enter).
# Every result is a union: the success type carries \`data\`, AppError says why not.
query Quote {
  quote(input: { destination: { address: "Av. Apoquindo 3000, Las Condes" }, totalWeightKg: 3 }) {
    ... on QueryQuoteSuccess { data { price currency vehicleType totalEstimatedMinutes rates { id name cost recommended } } }
    ... on AppError { code message }
  }
}`,
  },
  {
    query: `# Book a delivery (the idempotency key makes a retry safe).
mutation CreateOrder {
  createOrder(
    idempotencyKey: "graphiql-order-1"
    input: { dropoff: { address: "Av. Apoquindo 3000, Las Condes" }, customerName: "Ana Pérez", customerPhone: "+56987654321", paymentMode: prepaid }
  ) {
    ... on MutationCreateOrderSuccess { data { id trackingNumber trackingUrl status price } }
    ... on AppError { code message fields { field message } }
  }
}`,
  },
  {
    query: `# An order by booking id, reference, tracking number or order number.
query Order($id: String!) {
  order(id: $id) {
    ... on QueryOrderSuccess { data { id status trackingNumber estimatedDeliveryTime driver { name vehicleType } events { status at } } }
    ... on AppError { code message }
  }
}`,
    variables: JSON.stringify({ id: 'EXD-…' }, null, 2),
  },
  {
    query: `# Live tracking of one order (public: no key needed), over graphql-ws on /graphql.
subscription Tracking($reference: String!) {
  tracking(reference: $reference) { reference status location { lat lng } estimatedDeliveryTime at }
}`,
    variables: JSON.stringify({ reference: 'EXD-…' }, null, 2),
  },
  {
    query: `# Status changes of one of your orders, over graphql-ws: authenticated by the key in the key bar.
subscription OrderStatus($id: String!) {
  orderStatusChanged(id: $id) { orderId trackingNumber from status sequence at }
}`,
    variables: JSON.stringify({ id: 'EXD-…' }, null, 2),
  },
];

/** GraphiQL's options for Yoga (`graphiql:`): the examples and the key placeholder. */
export function graphiqlOptions(title: string): GraphiQLOptions {
  return {
    title,
    endpoint: '/graphql',
    subscriptionsProtocol: 'WS',
    defaultHeaders: GRAPHIQL_HEADERS,
    defaultTabs: GRAPHIQL_EXAMPLES.map((tab) => Object.assign({ headers: GRAPHIQL_HEADERS }, tab)),
    defaultEditorToolsVisibility: 'headers',
  };
}

/** Its scripts and styles are files of this server; workers and the bundle need nothing inline. */
export const GRAPHIQL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  // GraphiQL and its editor inject <style> elements at run time.
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Yoga's renderGraphiQL: the page, with options as inert JSON read by the init script. */
export function renderGraphiQLPage(options: GraphiQLOptions): string {
  const json = JSON.stringify(options).replace(/</g, '\\u003c');
  const title = (options.title ?? 'GraphiQL').replace(/[<&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${GRAPHIQL_ASSETS_PATH}/graphiql.css">
<link rel="stylesheet" href="${GRAPHIQL_ASSETS_PATH}/key-bar.css">
</head>
<body id="body" class="no-focus-outline">
<form id="key-bar" class="key-bar" autocomplete="off">
<label for="api-key">API key</label>
<input id="api-key" name="api-key" type="password" spellcheck="false" placeholder="ak_test_…">
<button type="submit">Use this key</button>
<span id="key-state" role="status"></span>
</form>
<div id="root">Loading GraphiQL…</div>
<script type="application/json" id="graphiql-options">${json}</script>
<script src="${GRAPHIQL_ASSETS_PATH}/graphiql-env.js"></script>
<script src="${GRAPHIQL_ASSETS_PATH}/graphiql.js"></script>
<script src="${GRAPHIQL_ASSETS_PATH}/graphiql-init.js"></script>
</body>
</html>
`;
}

const WORKERS: Record<string, string> = { editorWorkerService: 'editor.worker.js', json: 'json.worker.js', graphql: 'graphql.worker.js' };

const ENV_SCRIPT = `'use strict';
self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: function (_moduleId, label) {
    var workers = ${JSON.stringify(WORKERS)};
    return '${GRAPHIQL_ASSETS_PATH}/' + (workers[label] || workers.editorWorkerService);
  },
};
`;

/**
 * The key is kept for this browser tab only (sessionStorage) and read at each use: HTTP requests
 * carry it as X-API-Key under the tab's own headers, and graphql-ws sends it in connection_init
 * whenever the (lazy) socket connects, so a new key takes effect on the next connection.
 */
const INIT_SCRIPT = `'use strict';
(function () {
  var STORE = 'express-delivery.graphiql.api-key';
  var input = document.getElementById('api-key');
  var state = document.getElementById('key-state');
  var kept = '';
  function key() {
    try { return sessionStorage.getItem(STORE) || ''; } catch (e) { return kept; }
  }
  function show() {
    var k = key();
    state.textContent = k ? 'Requests and subscriptions use ' + k.slice(0, 12) + '…' : 'No key: public fields only (tracking)';
  }
  function credentials() {
    var k = key();
    return k ? { 'X-API-Key': k } : {};
  }
  input.value = key();
  document.getElementById('key-bar').addEventListener('submit', function (event) {
    event.preventDefault();
    kept = input.value.trim();
    try { sessionStorage.setItem(STORE, kept); } catch (e) { /* storage off: kept in memory */ }
    show();
  });
  show();
  var options = JSON.parse(document.getElementById('graphiql-options').textContent);
  options.additionalHeaders = credentials;
  options.connectionParams = credentials;
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options);
})();
`;

const KEY_BAR_CSS = `body { margin: 0; height: 100vh; display: flex; flex-direction: column; }
#root { flex: 1; min-height: 0; }
.key-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; padding: 6px 12px; font: 14px/1.4 system-ui, sans-serif; background: #f3f4f6; color: #111827; border-bottom: 1px solid #d1d5db; }
.key-bar input { flex: 1 1 16em; max-width: 32em; padding: 4px 8px; font: inherit; border: 1px solid #6b7280; border-radius: 4px; }
.key-bar button { padding: 4px 12px; font: inherit; color: #fff; background: #1d4ed8; border: 0; border-radius: 4px; cursor: pointer; }
#key-state { color: #374151; }
`;

export interface GraphiQLAsset {
  type: string;
  body: Buffer;
  /** Compressed on first use (the bundle is 9 MB, about 2.5 MB gzipped). */
  gzipped(): Buffer;
}

let assets: Promise<Map<string, GraphiQLAsset>> | undefined;

/** The page's files, loaded on first use: the bundle module is large and most nodes never serve it. */
export function graphiqlAsset(name: string): Promise<GraphiQLAsset | undefined> {
  assets ??= import('@graphql-yoga/render-graphiql/graphiql').then((files) => {
    const js = 'text/javascript; charset=utf-8';
    const entries: [string, string, string][] = [
      ['graphiql.js', js, files.js],
      ['graphiql.css', 'text/css; charset=utf-8', files.css],
      ['graphiql-env.js', js, ENV_SCRIPT],
      ['graphiql-init.js', js, INIT_SCRIPT],
      ['key-bar.css', 'text/css; charset=utf-8', KEY_BAR_CSS],
      [WORKERS.editorWorkerService!, js, files.editorWorkerService],
      [WORKERS.json!, js, files.jsonWorker],
      [WORKERS.graphql!, js, files.graphqlWorker],
    ];
    return new Map(entries.map(([file, type, text]) => [file, asset(type, text)]));
  });
  return assets.then((all) => all.get(name));
}

function asset(type: string, text: string): GraphiQLAsset {
  const body = Buffer.from(text);
  let zipped: Buffer | undefined;
  return { type, body, gzipped: () => (zipped ??= gzipSync(body)) };
}
