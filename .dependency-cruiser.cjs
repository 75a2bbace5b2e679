// The boundaries of ARCHITECTURE.md, checked by `npm run lint` (so by `npm test`) on production code,
// tests and benches alike. Paths are the files an import resolves to (workspace links followed).
const ROLES = '(ingest|processors|api)';
const TEST = '(\\.test\\.ts$|/bench/|/web-e2e/)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'schemas-imports-nothing-of-ours',
      comment: 'schemas holds the wire contracts: it imports nothing of ours',
      severity: 'error',
      from: { path: '^schemas/' },
      to: { path: '^(runtime|core|testkit|ingest|processors|api|web|ops)/' },
    },
    {
      name: 'runtime-imports-only-schemas',
      comment: 'runtime is the platform: no domain, no role, no ops',
      severity: 'error',
      from: { path: '^runtime/' },
      to: { path: '^(core|ingest|processors|api|web|ops)/' },
    },
    {
      name: 'core-imports-only-schemas-and-runtime',
      severity: 'error',
      from: { path: '^core/' },
      to: { path: '^(ingest|processors|api|web|ops)/' },
    },
    {
      name: 'roles-never-import-each-other',
      comment: 'ingest, processors and api meet through Kafka, the stores, the queues and core',
      severity: 'error',
      from: { path: `^${ROLES}/` },
      to: { path: `^${ROLES}/`, pathNot: '^$1/' },
    },
    {
      name: 'production-code-never-imports-the-testkit',
      severity: 'error',
      from: { path: '^(schemas|runtime|core|ingest|processors|api|ops)/', pathNot: TEST },
      to: { path: '^testkit/' },
    },
    {
      name: 'only-the-full-testkit-may-reach-roles',
      comment: "runtime's and core's tests use the testkit's main entry, which imports no role",
      severity: 'error',
      from: { path: '^(runtime|core)/' },
      to: {
        path: '^testkit/src/(?!index\\.ts$|stores\\.ts$|names\\.ts$|envelopes\\.ts$|kafka\\.ts$|logger\\.ts$|tcp-proxy\\.ts$|bench-events\\.ts$|chdb\\.ts$)',
      },
    },
    {
      name: 'testkit-main-entry-imports-no-role',
      severity: 'error',
      from: { path: '^testkit/src/(index|stores|names|envelopes|kafka|logger|tcp-proxy|bench-events|chdb)\\.ts$' },
      to: { path: `^(${ROLES.slice(1, -1)}|ops)/` },
    },
    {
      name: 'nothing-imports-ops',
      comment: 'ops is the top of the house (launcher, registry, CLI, stack)',
      severity: 'error',
      from: { pathNot: '^ops/' },
      to: { path: '^ops/' },
    },
    {
      name: 'web-talks-http-only',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^(schemas|runtime|core|testkit|ingest|processors|api|ops)/' },
    },
    {
      name: 'into-web-never',
      severity: 'error',
      from: { pathNot: '^web/' },
      to: { path: '^web/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|\\.stack)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    preserveSymlinks: false,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
