// The boundaries of ARCHITECTURE.md, checked by `npm run lint` (so by `npm test`) on production code,
// tests and benches alike. Paths are the files an import resolves to (workspace links followed).
const ROLES = '(ingest|processors|api)';
const TEST = '(\\.test\\.ts$|/bench/|/web-e2e/)';
// A processors role folder is any folder under processors/src/ but the shared ones (actions, correlate,
// deliver, notify, reports, scheduler, store, stream, and any added later); its name is $1 in the rules.
const PROCESSOR_SHARED = '(?:kafka|shared)';
const PROCESSOR_ROLE_FOLDER = `^processors/src/(?!${PROCESSOR_SHARED}/)([^/]+)/`;

// The core areas (`@watchpost/core/<area>`, the "exports" of core/package.json) the production code of each
// role, and of ops, may import: what each uses today and why. A role needing another area adds it here, so
// the review sees the role's reach into the domain grow. Tests and benches may import any area and the barrel.
const CORE_AREAS = {
  ingest: [
    'actions', // the agent poll: pending agent commands, update offers, the agent-update settings
    'agent-keys', // an event's key checked (ApiKeyVerifier), the bootstrap key made at start
    'hosts', // the agent poll finds the host bound to the polling agent
    'problems', // deterministicUuid: the SMTP intake's event ids (it lives beside the problem store)
  ],
  processors: [
    'actions', // the actions role: records, jobs, kinds, settings, sessions, versions, bundles
    'devices', // deliver: Web Push targets and the VAPID keys
    'hosts', // correlate writes hosts and heartbeats, the liveness scan, stream's host statuses, action targets
    'notify', // notify decides, deliver sends, reports schedules: policy, channels, records, jobs
    'pg-safe', // correlate and the lockout notice bound what goes to Postgres; chat cuts its text whole
    'problems', // correlate opens and resolves problems (state machine and store)
    'retention', // the scheduler's Postgres retention sweep
    'secrets', // actions and deliver decrypt stored credentials (the secrets key)
    'type-settings', // correlate, notify and stream apply the per-type severity override and visibility
    'window-time', // correlate's flap positions and store's rows count an event by its window time
  ],
  api: [
    'actions', // the action routes mounted from the kinds' descriptors, agent commands, bundles, versions
    'agent-keys', // the API keys routes and an agent's key on the API
    'audit', // every audited change and GET /audit
    'devices', // mobile enrollment, devices, push subscriptions
    'hosts', // host reads, statuses, host changes, deletion, provenance
    'notify', // notification policy, channels, deliveries, explain
    'problems', // problem reads
    'secrets', // channel and section secrets, TOTP seeds, bundles' keys encrypted at rest
    'settings', // GET/PUT /settings/<path> mounted from the sections
    'type-settings', // the per-type severity override and visibility at read time
    'users', // login, users, accounts, passwords, TOTP and the second factor
  ],
  ops: [
    'agent-keys', // the CLI's api-keys commands; the backup names the bootstrap key file
    'audit', // the CLI audits the changes it makes
    'migrate', // npm run migrate, and restore migrates what it restores
    'notify', // the launcher reads the channels' environment defaults
    'secrets', // the launcher checks configured secrets; backup and restore carry the secrets key
    'users', // the CLI's users commands; restore removes every TOTP seed
  ],
};
// The area entries come from core's package.json, so a renamed or removed area fails here, never silently.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- dependency-cruiser loads this file with require
const CORE_EXPORTS = require('./core/package.json').exports;
/** The file an import of `@watchpost/core/<area>` resolves to, as a path rule. */
function coreEntry(area) {
  const target = CORE_EXPORTS[`./${area}`];
  if (!target) throw new Error(`.dependency-cruiser.cjs: core exports no area "${area}"`);
  return `^core/${target.slice(2).replace(/[.]/g, '\\.')}$`;
}
const CORE_BARREL = '^core/src/index\\.ts$';

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
      name: 'roles-import-core-by-area',
      comment:
        'production code of ingest, processors, api and ops imports core by area (`@watchpost/core/hosts`, ' +
        '`/notify`, ...), never the barrel `@watchpost/core`: each import says which part of the domain it ' +
        'uses. Tests, benches and the testkit may use the barrel',
      severity: 'error',
      from: { path: `^(${ROLES.slice(1, -1)}|ops)/`, pathNot: TEST },
      to: { path: CORE_BARREL },
    },
    ...Object.entries(CORE_AREAS).map(([role, areas]) => ({
      name: `${role}-imports-only-its-core-areas`,
      comment:
        `${role}'s production code reaches core only through the entries of its areas (CORE_AREAS at the top ` +
        'of this file): another area, or a file behind an entry, is refused. The barrel has its own rule',
      severity: 'error',
      from: { path: `^${role}/`, pathNot: TEST },
      to: { path: '^core/', pathNot: [CORE_BARREL, ...areas.map(coreEntry)] },
    })),
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
