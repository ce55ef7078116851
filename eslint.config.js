import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

// Import boundaries: docs/architecture.md's rules as lint (core no-restricted-imports; it checks `import
// type` too, because a type from a storage port couples an edge to storage as much as a value).
/** A relative import, from any depth, that reaches `path` (the part after the `../`s). */
const up = (path) => `^(\\.\\./)+${path}`;
const EDGES = 'Edges (rest/, schema/, realtime/) call domain services only (docs/architecture.md "Edges call services only").';
const BOUNDARY = {
  edgeAdapters: { regex: up('src/adapters/'), message: `${EDGES} Adapters are wired in src/container.ts.` },
  edgeContainer: { regex: up('src/container\\.js$'), message: `${EDGES} They are handed an Edge (src/edge/edge.ts): services, config, logger, front door.` },
  edgePorts: { regex: up('src/ports/(store|event-bus|rate-limiter|geo-index)\\.js$'), message: `${EDGES} No storage or transport port.` },
  schemaRealtime: { regex: up('realtime/'), message: 'schema/ and realtime/ do not import each other: share through the domain (src/domain/watch).' },
  realtimeSchema: { regex: up('schema/'), message: 'schema/ and realtime/ do not import each other: share through the domain.' },
  realtimeRest: { regex: up('rest/'), message: 'realtime/ does not import rest/: the public tracking view is a domain projection.' },
  domainOuter: {
    regex: up('(adapters|rest|schema|realtime)/'),
    message: 'The domain imports no adapter and no edge (rest/, schema/, realtime/): it depends on src/ports only.',
  },
  domainPackages: {
    regex: '^(express|graphql|graphql-yoga|graphql-ws|graphql-jit|ws|mongodb|ioredis|better-sqlite3|rate-limiter-flexible)(/|$)|^@pothos/|^@escape\\.tech/',
    message: 'The domain imports no transport (Express, GraphQL, ws) and no driver (MongoDB, Redis, SQLite).',
  },
  // Adapters may use the domain's vocabulary: its types, errors and pure value helpers listed here
  // (add a module only if it exports no service and reaches no port). Never a service.
  adapterDomain: {
    regex: up('domain/(?!(types|errors|geo|webhooks/address-policy|notifications/types)\\.js$)'),
    message: 'Adapters may import only the domain\'s types, errors and pure helpers (types, errors, geo, webhooks/address-policy, notifications/types), never a service.',
  },
  adapterEdges: { regex: up('(rest|schema|realtime)/'), message: 'Adapters do not import edges.' },
};
const LAYERS = [
  { files: ['rest/**/*.ts'], rules: ['edgeAdapters', 'edgeContainer', 'edgePorts'] },
  { files: ['schema/**/*.ts'], rules: ['edgeAdapters', 'edgeContainer', 'edgePorts', 'schemaRealtime'] },
  { files: ['realtime/**/*.ts'], rules: ['edgeAdapters', 'edgeContainer', 'edgePorts', 'realtimeSchema', 'realtimeRest'] },
  { files: ['src/edge/**/*.ts'], rules: ['edgeAdapters', 'edgePorts'] },
  { files: ['src/domain/**/*.ts'], rules: ['domainOuter', 'domainPackages'] },
  { files: ['src/adapters/**/*.ts'], rules: ['adapterDomain', 'adapterEdges'] },
];
function boundaryRule(names) {
  const patterns = names.map((name) => ({ regex: BOUNDARY[name].regex, message: BOUNDARY[name].message }));
  return { 'no-restricted-imports': ['error', { patterns }] };
}
const boundaries = LAYERS.map((layer) => ({ files: layer.files, rules: boundaryRule(layer.rules) }));

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'dist/', 'web/build/', 'coverage/', 'test-results/', 'bench/results/', 'realtime/public/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // Type-aware rules: every .ts file is in tsconfig.json (src, rest, schema, realtime, test, bench).
    // A promise nobody awaits loses its rejection (an unhandled rejection ends the process); a
    // promise where a void callback is expected (an Express handler, an event listener) too.
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // Request-path code. Node 20's V8 builds `{ ...a, b, c }` on a slow path: about 0.7 µs for
    // each member after a leading spread (25 of them cost an order read 30 µs, bench/orders).
    files: ['src/**/*.ts', 'rest/**/*.ts', 'schema/**/*.ts', 'realtime/**/*.ts'],
    ignores: ['rest/openapi/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ObjectExpression > SpreadElement:first-child ~ Property',
          message: 'A leading spread followed by members is slow on Node 20: use Object.assign({}, a, { b, c }), or start with a member.',
        },
      ],
    },
  },
  ...boundaries,
  {
    // The web apps run in the browser and reach the service through its public API only.
    files: ['web/**'],
    ignores: ['web/scripts/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(\\.\\./)+(src|rest|schema|realtime)/', message: 'The web apps use the public API only (GraphQL types come from web/shared/graphql-env.d.ts).' }] }],
    },
  },
);
