// The boundaries of ARCHITECTURE.md, checked by `npm run lint` (so by `npm test`) on production code,
// tests and benches alike. Paths are the files an import resolves to (workspace links followed).
const ROLES = '(ingest|processors|api)';
const TEST = '(\\.test\\.ts$|/bench/|/web-e2e/)';
// A processors role folder is any folder under processors/src/ but the shared ones (actions, correlate,
// deliver, notify, reports, scheduler, store, stream, and any added later); its name is $1 in the rules.
const PROCESSOR_SHARED = '(?:kafka|shared)';
const PROCESSOR_ROLE_FOLDER = `^processors/src/(?!${PROCESSOR_SHARED}/)([^/]+)/`;

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
      name: 'no-circular',
      comment:
        'no import circle (production code, tests and benches): the shared piece moves to the file where it ' +
        'belongs or to a small file of its own, never behind a dynamic import',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'processors-role-folders-import-only-their-own',
      comment:
        'a processors role folder imports its own folder, kafka/ and shared/: what two roles need moves to ' +
        'processors/src/shared/ (or core), the roles are put together in processors/src/index.ts (the ' +
        "scheduler's jobs included). A test driving several roles imports them from that entry",
      severity: 'error',
      from: { path: PROCESSOR_ROLE_FOLDER },
      to: {
        path: '^processors/src/',
        pathNot: [`^processors/src/($1|${PROCESSOR_SHARED})/`, '^processors/src/index\\.ts$'],
      },
    },
    {
      name: 'processors-role-folders-reach-the-entry-only-in-tests',
      comment: "the package entry puts the roles together: a role's production code never imports it",
      severity: 'error',
      from: { path: PROCESSOR_ROLE_FOLDER, pathNot: TEST },
      to: { path: '^processors/src/index\\.ts$' },
    },
    {
      name: 'processors-shared-folders-import-no-role',
      comment: 'kafka/ and shared/ sit below every role folder, tests included',
      severity: 'error',
      from: { path: `^processors/src/${PROCESSOR_SHARED}/` },
      to: { path: '^processors/src/', pathNot: `^processors/src/${PROCESSOR_SHARED}/` },
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
