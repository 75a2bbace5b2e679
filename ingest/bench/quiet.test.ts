import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  classify,
  cpuByGroup,
  cpuRatio,
  findStackPids,
  loadVerdict,
  otherCores,
  otherVerdict,
  parseListeningSockets,
  parseLoadavg,
  parseProcStat,
  pipelineUsPerEvent,
  quietLimits,
  sumUsage,
  usageBetween,
  usPerEvent,
  type Group,
  type ProcStat,
  type Snapshot,
  type Usage,
} from './quiet.ts';

/** A /proc/<pid>/stat line as the kernel writes it (52 fields), utime..cstime where they belong. */
const statLine = (pid: number, comm: string, ppid: number, utime = 0, stime = 0, cutime = 0, cstime = 0) =>
  `${pid} (${comm}) S ${ppid} ${pid} ${pid} 0 -1 4194304 2852271 0 48 0 ${utime} ${stime} ${cutime} ${cstime} 20 0 39 0 12418 4462305280 28624 18446744073709551615 94846197628928 94846198715360 140729491909680 0 0 0 4096 0 1073764095 0 0 0 17 1 0 0 0 0 0 94846198731232 94846198754608 94846222856192 140729491913525 140729491913598 140729491913598 140729491914714 0`;

const proc = (pid: number, ppid: number, ticks: number, comm = 'x'): ProcStat => ({ pid, ppid, comm, ticks });

describe('parseProcStat', () => {
  it('reads pid, ppid, name and utime + stime + cutime + cstime', () => {
    expect(parseProcStat(statLine(5748, 'redis-server', 1, 891, 412, 3, 4))).toEqual({
      pid: 5748,
      ppid: 1,
      comm: 'redis-server',
      ticks: 891 + 412 + 3 + 4,
    });
  });

  it('a real line of a running ClickHouse (name cut to 15 characters)', () => {
    const line =
      '5754 (clickhouse-serv) S 1 5754 5754 0 -1 4194304 2852271 0 48 0 3141 2680 0 0 20 0 39 0 12418 4462305280 28624 18446744073709551615 94846197628928 94846198715360 140729491909680 0 0 0 4096 0 10737640';
    expect(parseProcStat(line)).toMatchObject({ pid: 5754, ppid: 1, comm: 'clickhouse-serv', ticks: 3141 + 2680 });
  });

  it('names with spaces and parentheses: the fields count from the last ")"', () => {
    expect(parseProcStat(statLine(1234, 'tmux: server', 1, 10, 5))).toMatchObject({ comm: 'tmux: server', ppid: 1, ticks: 15 });
    expect(parseProcStat(statLine(42, 'a) b) S 99 (c', 7, 1, 2, 3, 4))).toMatchObject({
      pid: 42,
      comm: 'a) b) S 99 (c',
      ppid: 7,
      ticks: 10,
    });
    expect(parseProcStat(statLine(43, '', 7, 1, 1))).toMatchObject({ comm: '', ticks: 2 });
  });

  it('a trailing newline is no field', () => {
    expect(parseProcStat(`${statLine(7, 'node', 1, 100, 50)}\n`)).toMatchObject({ ticks: 150 });
  });

  it('refuses what is no stat line', () => {
    expect(parseProcStat('')).toBeUndefined();
    expect(parseProcStat('12 (cut) S 1 2 3')).toBeUndefined();
    expect(parseProcStat('x (name) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0')).toBeUndefined();
    expect(parseProcStat('12 (name) S 1 1 1 0 -1 0 0 0 0 0 one 1 0 0')).toBeUndefined();
  });
});

describe('parseLoadavg and parseListeningSockets', () => {
  it('the 1-minute load average', () => {
    expect(parseLoadavg('5.21 6.17 4.21 1/370 1848\n')).toBe(5.21);
  });

  it('listening sockets only, ports from hex, IPv4 and IPv6', () => {
    const tcp = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:3BFF 00000000:0000 0A 00000000:00000000 00:00000000 00000000   106        0 7048 1 00000000beba417c 100 0 0 10 0',
      '   1: 0100007F:3BFF 0100007F:D431 01 00000000:00000000 00:00000000 00000000   106        0 7050 1 00000000beba417c 20 4 30 10 -1',
      '   2: 00000000000000000000000001000000:4A9C 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 279913 1 0 100 0 0 10 0',
      '',
    ].join('\n');
    expect(parseListeningSockets(tcp)).toEqual([
      { port: 15359, inode: 7048 },
      { port: 19100, inode: 279913 },
    ]);
  });
});

describe('classify and CPU per group', () => {
  // 1 init; 2 kthreadd, 30 a kworker; 100 the bench (wrk 101, the service 110 with a child 111);
  // 200 postgres with backends 201, 202; 300 Kafka; 400 someone's test run with a worker 401.
  const procs = [
    proc(1, 0, 5),
    proc(2, 0, 0),
    proc(30, 2, 7),
    proc(100, 50, 40),
    proc(101, 100, 20),
    proc(110, 100, 300),
    proc(111, 110, 10),
    proc(200, 1, 2),
    proc(201, 200, 30),
    proc(202, 200, 40),
    proc(300, 1, 90),
    proc(400, 1, 1),
    proc(401, 400, 100),
  ];
  const roots = new Map<number, Group>([
    [100, 'bench'],
    [110, 'service'],
    [200, 'postgres'],
    [300, 'kafka'],
  ]);

  it('each process goes to its nearest rooted ancestor; kernel threads and the rest apart', () => {
    const g = classify(procs, roots);
    expect(Object.fromEntries(g)).toEqual({
      1: 'other',
      2: 'kernel',
      30: 'kernel',
      100: 'bench',
      101: 'bench',
      110: 'service',
      111: 'service',
      200: 'postgres',
      201: 'postgres',
      202: 'postgres',
      300: 'kafka',
      400: 'other',
      401: 'other',
    });
  });

  it('sums ticks per group in seconds', () => {
    expect(Object.fromEntries(cpuByGroup(procs, roots, 100))).toEqual({
      other: (5 + 1 + 100) / 100,
      kernel: 0.07,
      bench: 0.6,
      service: 3.1,
      postgres: 0.72,
      kafka: 0.9,
    });
  });

  it('a parent chain that loops ends', () => {
    expect(Object.fromEntries(classify([proc(5, 6, 1), proc(6, 5, 1)], new Map()))).toEqual({ 5: 'other', 6: 'other' });
  });

  it('between two snapshots: an exited backend is charged through its parent, a new one with all it used', () => {
    const a: Snapshot = { atMs: 1000, load1: 0.2, procs: [proc(200, 1, 10), proc(201, 200, 50), proc(400, 1, 0)] };
    // 201 ended at 80 ticks (postmaster's cutime += 80), 203 started and used 15; 400 ran a child that exited (20).
    const b: Snapshot = { atMs: 3000, load1: 0.3, procs: [proc(200, 1, 10 + 80), proc(203, 200, 15), proc(400, 1, 20)] };
    const u = usageBetween(a, b, new Map<number, Group>([[200, 'postgres']]), 100);
    expect(u.seconds).toBe(2);
    expect(u.load1).toBe(0.3);
    expect(u.cpu.postgres).toBeCloseTo(0.45);
    expect(u.cpu.other).toBeCloseTo(0.2);
    expect(u.cpu.kafka).toBeUndefined(); // no root: n/a, not 0
    expect(u.cpu.bench).toBe(0);
    expect(otherCores(u)).toBeCloseTo(0.1);
  });
});

describe('the busy decision', () => {
  const usage = (other: number, seconds = 10): Usage => ({ seconds, cpu: { other }, load1: 0 });

  it('defaults: half the cores for the load, 10 % of a core for the others, not strict', () => {
    expect(quietLimits({}, 2)).toEqual({ maxLoad: 1, maxOtherCores: 0.1, strict: false, waitSeconds: 0 });
    expect(
      quietLimits({ BENCH_MAX_LOAD: '1.5', BENCH_MAX_OTHER_CPU: '25%', BENCH_STRICT: '1', BENCH_QUIET_WAIT: '60' }, 2),
    ).toEqual({ maxLoad: 1.5, maxOtherCores: 0.25, strict: true, waitSeconds: 60 });
    expect(quietLimits({ BENCH_MAX_OTHER_CPU: '0.05', BENCH_STRICT: '0' }, 4)).toMatchObject({
      maxLoad: 2,
      maxOtherCores: 0.05,
      strict: false,
    });
    expect(() => quietLimits({ BENCH_MAX_LOAD: 'high' }, 2)).toThrow(/not a number/);
  });

  it('the load at the start', () => {
    const limits = quietLimits({}, 2);
    expect(loadVerdict(0.99, limits)).toBeUndefined();
    expect(loadVerdict(1, limits)).toBeUndefined();
    expect(loadVerdict(2.31, limits)).toBe('load 2.31 > 1.00 at the start');
  });

  it("the other processes' CPU in a window", () => {
    const limits = quietLimits({}, 2);
    expect(otherVerdict(usage(1), limits)).toBeUndefined(); // 10 % of a core: the limit itself
    expect(otherVerdict(usage(3.5), limits)).toBe('other processes used 35% of a core (> 10%)');
    expect(otherVerdict(usage(0, 0), limits)).toBeUndefined();
  });
});

describe('per event', () => {
  it('µs per event, n/a without the group or without events', () => {
    expect(usPerEvent(3.12, 10_000)).toBeCloseTo(312);
    expect(usPerEvent(undefined, 10_000)).toBeUndefined();
    expect(usPerEvent(1, 0)).toBeUndefined();
  });

  it('the pipeline: the service and the stack servers found, not the bench nor the others', () => {
    const cpu = { service: 3, kafka: 0.3, redis: 0.25, postgres: 0.05, bench: 2, kernel: 0.1, other: 9 };
    expect(pipelineUsPerEvent(cpu, 10_000)).toBeCloseTo(360);
    expect(pipelineUsPerEvent({ kafka: 1 }, 10_000)).toBeUndefined();
    expect(cpuRatio(360, 146)).toBeCloseTo(2.466, 3);
    expect(cpuRatio(360, undefined)).toBeUndefined();
    expect(cpuRatio(360, 0)).toBeUndefined();
  });

  it('windows add up; a group missing in one window is missing in the sum', () => {
    const s = sumUsage([
      { seconds: 10, cpu: { service: 1, kafka: 0.2, other: 0.1 }, load1: 0.5 },
      { seconds: 5, cpu: { service: 2, other: 0.4 }, load1: 0.7 },
    ]);
    expect(s).toEqual({ seconds: 15, cpu: { service: 3, other: 0.5 }, load1: 0.7 });
  });
});

describe('findStackPids', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('pid files checked against the process name; a server without one by its listening port; else none', () => {
    dir = mkdtempSync(join(tmpdir(), 'quiet-'));
    const stack = join(dir, 'stack');
    const fake = join(dir, 'proc');
    const put = (path: string, text: string) => {
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text);
    };
    put(join(fake, '10', 'stat'), statLine(10, 'java', 1));
    put(join(fake, '20', 'stat'), statLine(20, 'postgres', 1));
    put(join(fake, '21', 'stat'), statLine(21, 'bash', 1)); // what a stale redis pid file names now
    put(join(fake, '30', 'stat'), statLine(30, 'redis-server', 1));
    mkdirSync(join(fake, '30', 'fd'));
    symlinkSync('socket:[7048]', join(fake, '30', 'fd', '6'));
    symlinkSync('/dev/null', join(fake, '30', 'fd', '0'));
    put(
      join(fake, 'net', 'tcp'),
      'sl local_address rem_address st tx_queue rx_queue tr tm->when retrnsmt uid timeout inode\n' +
        '0: 0100007F:3BFF 00000000:0000 0A 00000000:00000000 00:00000000 00000000 106 0 7048 1 0 100 0 0 10 0\n',
    );
    put(join(stack, 'kafka', 'pid'), '10');
    put(join(stack, 'postgres', 'pid'), '20\n');
    put(join(stack, 'redis', 'pid'), '21');
    expect(findStackPids({ stackDir: stack, proc: fake, ports: { redis: [15359], clickhouse: [18123] } })).toEqual({
      kafka: [10],
      redis: [30],
      postgres: [20],
      clickhouse: [],
    });
  });
});
