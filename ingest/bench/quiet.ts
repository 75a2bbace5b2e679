// "Measure first, on a quiet machine" (issue 36): what every process involved in a bench window costs,
// and whether anything else ran beside it. From /proc (Linux): the 1-minute load average, and the CPU
// time (utime + stime, plus cutime + cstime: what exited children it waited for had used) of every process,
// each charged to the group of its nearest ancestor among the roots the bench names (the service it
// started, the local stack's Kafka, Redis, Postgres and ClickHouse, the bench itself with wrk); what
// no root claims is a kernel thread or "other": work that has no place beside a measurement.
// The parsing and the arithmetic are pure (quiet.test.ts); reading /proc is the thin rest.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** The stack's servers, in print order. */
export const STACK_GROUPS = ['kafka', 'redis', 'postgres', 'clickhouse'] as const;
export type StackGroup = (typeof STACK_GROUPS)[number];
/** What one event costs: the service's processes and the stack's servers. */
export const PIPELINE_GROUPS = ['service', ...STACK_GROUPS] as const;
/** bench = this process and its other children (wrk, idle servers, the SMTP client); kernel = kernel threads. */
export type Group = (typeof PIPELINE_GROUPS)[number] | 'bench' | 'kernel' | 'other';

export interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime + cutime + cstime, in clock ticks. */
  ticks: number;
}

/**
 * One /proc/<pid>/stat line. The name (field 2) sits in parentheses and may itself hold spaces and
 * parentheses ("(tmux: server)", "(a) b)"), so the fields are counted from the last ")".
 */
export function parseProcStat(line: string): ProcStat | undefined {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(line.slice(0, open).trim());
  // After ") ": state(3) ppid(4) pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(14) stime cutime cstime(17)
  const f = line
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const n = (i: number) => Number(f[i]);
  if (!Number.isInteger(pid) || f.length < 15 || [1, 11, 12, 13, 14].some((i) => !Number.isFinite(n(i)))) return undefined;
  return { pid, ppid: n(1), comm: line.slice(open + 1, close), ticks: n(11) + n(12) + n(13) + n(14) };
}

/** The 1-minute load average from /proc/loadavg ("0.52 0.58 0.59 1/370 1848"). */
export function parseLoadavg(text: string): number {
  return Number(text.trim().split(/\s+/)[0]);
}

/** Listening TCP sockets (state 0A) from /proc/net/tcp or tcp6: local port and socket inode. */
export function parseListeningSockets(text: string): { port: number; inode: number }[] {
  const out: { port: number; inode: number }[] = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== '0A') continue;
    const port = parseInt(f[1]!.split(':').pop()!, 16);
    const inode = Number(f[9]);
    if (Number.isFinite(port) && inode > 0) out.push({ port, inode });
  }
  return out;
}

/** Which group each process belongs to: its own or its nearest ancestor's root; else kernel or other. */
export function classify(procs: readonly ProcStat[], roots: ReadonlyMap<number, Group>): Map<number, Group> {
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const out = new Map<number, Group>();
  for (const p of procs) {
    let group: Group | undefined;
    // Bounded walk: a pid reused while we read could make a cycle.
    for (let cur: ProcStat | undefined = p, hops = 0; cur && hops < 64; hops++) {
      group = out.get(cur.pid) ?? roots.get(cur.pid);
      if (group || cur.ppid <= 0) break;
      cur = byPid.get(cur.ppid);
    }
    // kthreadd (pid 2) and its children: kernel threads (disk flushes, softirqs: partly ours).
    out.set(p.pid, group ?? (p.pid === 2 || p.ppid === 2 ? 'kernel' : 'other'));
  }
  return out;
}

/** CPU seconds per group in one snapshot (ticks / hz). */
export function cpuByGroup(procs: readonly ProcStat[], roots: ReadonlyMap<number, Group>, hz: number): Map<Group, number> {
  const groups = classify(procs, roots);
  const ticks = new Map<Group, number>();
  for (const p of procs) {
    const g = groups.get(p.pid)!;
    ticks.set(g, (ticks.get(g) ?? 0) + p.ticks);
  }
  return new Map([...ticks].map(([g, t]) => [g, t / hz]));
}

export interface Snapshot {
  /** performance.now() when read, ms. */
  atMs: number;
  load1: number;
  procs: ProcStat[];
}

/** What a window cost: CPU seconds per group (undefined: no process of that group was found). */
export interface Usage {
  seconds: number;
  cpu: Partial<Record<Group, number>>;
  /** The 1-minute load average at the window's end. */
  load1: number;
}

/**
 * CPU per group between two snapshots. A process that exited in between is charged through its parent's
 * cutime/cstime; one born in between with all it used. Groups without a root are left out (n/a), except
 * bench, kernel and other, which are always there.
 */
export function usageBetween(a: Snapshot, b: Snapshot, roots: ReadonlyMap<number, Group>, hz: number): Usage {
  const before = cpuByGroup(a.procs, roots, hz);
  const after = cpuByGroup(b.procs, roots, hz);
  const rooted = new Set<Group>([...roots.values(), 'bench', 'kernel', 'other']);
  const cpu: Partial<Record<Group, number>> = {};
  for (const g of rooted) cpu[g] = Math.max(0, (after.get(g) ?? 0) - (before.get(g) ?? 0));
  return { seconds: (b.atMs - a.atMs) / 1000, cpu, load1: b.load1 };
}

// ---- the verdict -------------------------------------------------------------------------------------

export interface QuietLimits {
  /** The highest 1-minute load average at the start (BENCH_MAX_LOAD; default half the cores). */
  maxLoad: number;
  /** Other processes' CPU during a window, in cores (BENCH_MAX_OTHER_CPU: 0.1 or "10%"; default 0.1). */
  maxOtherCores: number;
  /** BENCH_STRICT=1: refuse (exit 2) instead of marking. */
  strict: boolean;
  /** BENCH_QUIET_WAIT: seconds to wait at the start for the load to fall under maxLoad (default 0). */
  waitSeconds: number;
}

export function quietLimits(env: NodeJS.ProcessEnv, cores: number): QuietLimits {
  const num = (v: string | undefined, dflt: number) => {
    if (v === undefined || v.trim() === '') return dflt;
    const pct = v.trim().endsWith('%');
    const x = Number(pct ? v.trim().slice(0, -1) : v);
    if (!Number.isFinite(x) || x < 0) throw new Error(`not a number: ${v}`);
    return pct ? x / 100 : x;
  };
  return {
    maxLoad: num(env.BENCH_MAX_LOAD, 0.5 * cores),
    maxOtherCores: num(env.BENCH_MAX_OTHER_CPU, 0.1),
    strict: /^(1|true|yes|on)$/i.test(env.BENCH_STRICT ?? ''),
    waitSeconds: num(env.BENCH_QUIET_WAIT, 0),
  };
}

/** Why the machine was not quiet at the start, or undefined. */
export function loadVerdict(load1: number, limits: QuietLimits): string | undefined {
  return load1 > limits.maxLoad ? `load ${load1.toFixed(2)} > ${limits.maxLoad.toFixed(2)} at the start` : undefined;
}

/** Other processes' CPU in a window, in cores (0.1 = 10 % of one core). */
export const otherCores = (u: Usage) => (u.seconds > 0 ? (u.cpu.other ?? 0) / u.seconds : 0);

/** Why a window was not quiet, or undefined. */
export function otherVerdict(u: Usage, limits: QuietLimits): string | undefined {
  const c = otherCores(u);
  return c > limits.maxOtherCores ? `other processes used ${pct(c)} of a core (> ${pct(limits.maxOtherCores)})` : undefined;
}

export const pct = (cores: number) => `${Math.round(cores * 100)}%`;

// ---- per event ---------------------------------------------------------------------------------------

/** µs of CPU per event (= ms per 1,000 events); undefined without the group or without events. */
export function usPerEvent(cpuSeconds: number | undefined, events: number): number | undefined {
  return cpuSeconds === undefined || !(events > 0) ? undefined : (cpuSeconds * 1e6) / events;
}

/** The pipeline's CPU per event: the service and every stack server found (those absent count 0). */
export function pipelineUsPerEvent(cpu: Partial<Record<Group, number>>, events: number): number | undefined {
  if (cpu.service === undefined) return undefined;
  return usPerEvent(
    PIPELINE_GROUPS.reduce((s, g) => s + (cpu[g] ?? 0), 0),
    events,
  );
}

/** pipeline CPU per event / bare server CPU per event. */
export function cpuRatio(pipelineUs: number | undefined, bareUs: number | undefined): number | undefined {
  return pipelineUs === undefined || bareUs === undefined || !(bareUs > 0) ? undefined : pipelineUs / bareUs;
}

/** Adds windows: CPU seconds per group (a group missing in one window stays missing) and seconds. */
export function sumUsage(us: readonly Usage[]): Usage {
  const cpu: Partial<Record<Group, number>> = {};
  for (const u of us)
    for (const [g, s] of Object.entries(u.cpu) as [Group, number][])
      if (us.every((x) => x.cpu[g] !== undefined)) cpu[g] = (cpu[g] ?? 0) + s;
  return { seconds: us.reduce((s, u) => s + u.seconds, 0), cpu, load1: us.at(-1)?.load1 ?? NaN };
}

export const fmtUs = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(1));

// ---- /proc -------------------------------------------------------------------------------------------

let hzCache: number | undefined;
/** Clock ticks per second (`getconf CLK_TCK`, normally 100). */
export function clockTicks(): number {
  if (hzCache === undefined) {
    const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
    const n = Number(r.stdout?.trim());
    hzCache = r.status === 0 && n > 0 ? n : 100;
  }
  return hzCache;
}

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};
const link = (path: string) => {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
};
const pids = (proc: string) => readdirSync(proc).filter((d) => /^\d+$/.test(d));

export function readSnapshot(proc = '/proc'): Snapshot {
  const procs: ProcStat[] = [];
  for (const d of pids(proc)) {
    const p = parseProcStat(read(join(proc, d, 'stat')) ?? '');
    if (p) procs.push(p);
  }
  return { atMs: performance.now(), load1: parseLoadavg(read(join(proc, 'loadavg')) ?? 'NaN'), procs };
}

/** What a stack server's process is called (comm, at most 15 characters): a stale pid file is not trusted. */
const COMM: Record<StackGroup, RegExp> = {
  kafka: /^java$/,
  redis: /^redis/,
  postgres: /^postgres$/,
  clickhouse: /^clickhouse/,
};

/** Pids of the processes listening on these TCP ports (their socket inodes among each process's fds). */
function listening(ports: number[], proc: string): number[] {
  if (ports.length === 0) return [];
  const inodes = new Set(
    ['tcp', 'tcp6']
      .flatMap((f) => parseListeningSockets(read(join(proc, 'net', f)) ?? ''))
      .filter((s) => ports.includes(s.port))
      .map((s) => `socket:[${s.inode}]`),
  );
  const out: number[] = [];
  for (const d of pids(proc)) {
    let fds: string[];
    try {
      fds = readdirSync(join(proc, d, 'fd'));
    } catch {
      continue; // gone, or not ours to read
    }
    if (fds.some((fd) => inodes.has(link(join(proc, d, 'fd', fd))))) out.push(Number(d));
  }
  return out;
}

/**
 * The local stack's servers: from the pid files `npm run stack` writes (<stackDir>/<server>/pid, Kafka's
 * cluster nodes and Redis's Sentinel nodes in <stackDir>/kafka-cluster/node-* and redis-sentinel/*), each
 * checked against the process's name; a server without a live pid file, by the port it listens on.
 * A group with no process stays empty: printed "n/a".
 */
export function findStackPids(opts: {
  stackDir: string;
  ports: Partial<Record<StackGroup, number[]>>;
  proc?: string;
}): Record<StackGroup, number[]> {
  const proc = opts.proc ?? '/proc';
  const sub = (dir: string) => {
    const d = join(opts.stackDir, dir);
    return existsSync(d) ? readdirSync(d).map((x) => join(dir, x, 'pid')) : [];
  };
  const files: Record<StackGroup, string[]> = {
    kafka: ['kafka/pid', ...sub('kafka-cluster')],
    redis: ['redis/pid', ...sub('redis-sentinel')],
    postgres: ['postgres/pid'],
    clickhouse: ['clickhouse/pid'],
  };
  const out = {} as Record<StackGroup, number[]>;
  for (const g of STACK_GROUPS) {
    const alive = files[g]
      .map((f) => Number(read(join(opts.stackDir, f))?.trim()))
      .filter((pid) => pid > 0 && COMM[g].test(parseProcStat(read(join(proc, String(pid), 'stat')) ?? '')?.comm ?? ''));
    out[g] = alive.length > 0 ? alive : listening(opts.ports[g] ?? [], proc);
  }
  return out;
}

/** Measures windows: the roots are this process (bench), the stack's servers and the service pids of a window. */
export class CpuMeter {
  readonly hz = clockTicks();
  readonly stack: Record<StackGroup, number[]>;
  constructor(stack: Record<StackGroup, number[]>) {
    this.stack = stack;
  }

  roots(service: readonly number[]): Map<number, Group> {
    const roots = new Map<number, Group>([[process.pid, 'bench']]);
    for (const g of STACK_GROUPS) for (const pid of this.stack[g]) roots.set(pid, g);
    for (const pid of service) roots.set(pid, 'service');
    return roots;
  }

  /** Starts a window over these service pids; the function it returns ends it. */
  start(service: readonly number[]): () => Usage {
    const roots = this.roots(service);
    const a = readSnapshot();
    return () => usageBetween(a, readSnapshot(), roots, this.hz);
  }
}
