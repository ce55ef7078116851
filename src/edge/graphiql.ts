import { gzipSync } from 'node:zlib';
import type { GraphiQLOptions } from 'graphql-yoga';

/**
 * GraphiQL from this server's own files: Yoga's default page loads its bundle, styles and editor
 * workers from a CDN (blank offline). `@graphql-yoga/render-graphiql` ships the same files as
 * strings; the page links them here, under a path Express serves (rest/routes/pages.ts).
 */
export const GRAPHIQL_ASSETS_PATH = '/graphiql/assets';

/**
 * The key header as a placeholder: a user pastes the test key printed at first start between the
 * quotes. Empty, it is no credential at all, so GraphiQL's schema introspection still works.
 */
export const GRAPHIQL_HEADERS = JSON.stringify({ 'X-API-Key': '' }, null, 2);

/** The tabs a fresh browser opens with (GraphiQL keeps the user's own tabs after that). */
export const GRAPHIQL_EXAMPLES = [
  {
    query: `# A quote. Paste your test key (ak_test_…) into X-API-Key in the Headers pane below, then run (Ctrl+Enter).
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
    headers: '{}',
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
</head>
<body id="body" class="no-focus-outline">
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

const INIT_SCRIPT = `'use strict';
YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), JSON.parse(document.getElementById('graphiql-options').textContent));
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
