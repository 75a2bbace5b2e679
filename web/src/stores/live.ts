// The live stream for the whole UI. The dashboard summary is kept current: `events` frames add to the
// counters at once; `problems` and `hosts` frames (and, at most every 10 s, `events`) reload the summary's
// lists. No polling. Views that list problems or hosts subscribe to the frames (`subscribe`) and to
// `connected` (each time the stream is established: frames sent before it, while the view loaded or the
// stream was down, were missed: reload). `status` is what the
// connection indicator shows: live / connecting / offline (the browser says it has no network).
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { api, errorText, type Summary } from '../api/client';
import { openLiveStream, type LiveConnection, type LiveFrame } from '../api/live';

interface EventsFrame {
  kind: 'events';
  total: number;
  severity: Record<'info' | 'warning' | 'high' | 'critical', number>;
  daily_reports: number;
  heartbeats: number;
}
export interface HostsFrame {
  kind: 'hosts';
  at: string;
  hostname: string;
  status: 'online' | 'stale' | 'removed';
  previous: 'online' | 'stale' | null;
  counts: { total: number; online: number; stale: number };
}
export interface ProblemsFrame {
  kind: 'problems';
  action: 'opened' | 'reopened' | 'acknowledged' | 'resolved';
  problem: { id: string | null; host: string; type: string; title: string; severity: string; status?: string };
}
/** What a view can listen to: the stream's frames by kind, and `connected` (the stream is (re)established). */
export type LiveTopic = 'events' | 'problems' | 'hosts' | 'connected';
type Listener = (data: unknown) => void;

export const useLive = defineStore('live', () => {
  const summary = ref<Summary | null>(null);
  const error = ref('');
  const connected = ref(false);
  const liveEvents = ref(0);
  const online = ref(typeof navigator === 'undefined' ? true : navigator.onLine);
  const status = computed<'live' | 'connecting' | 'offline'>(() =>
    connected.value ? 'live' : online.value ? 'connecting' : 'offline',
  );
  const listeners = new Map<LiveTopic, Set<Listener>>();
  let everConnected = false;
  let conn: LiveConnection | null = null;
  let reloadTimer: ReturnType<typeof setTimeout> | null = null;
  let lastReload = 0;

  async function load() {
    const { data, error: e } = await api.GET('/api/v1/dashboards/summary');
    if (data) {
      summary.value = data;
      error.value = '';
    } else error.value = errorText(e, 'Could not load the dashboard');
    lastReload = Date.now();
  }

  function reloadSoon(minGapMs: number) {
    if (reloadTimer) return;
    const wait = Math.max(500, lastReload + minGapMs - Date.now());
    reloadTimer = setTimeout(() => {
      reloadTimer = null;
      void load();
    }, wait);
  }

  /** Calls `fn` for each frame of `topic` until the returned function is called. */
  function subscribe(topic: LiveTopic, fn: Listener): () => void {
    const set = listeners.get(topic) ?? new Set<Listener>();
    set.add(fn);
    listeners.set(topic, set);
    return () => set.delete(fn);
  }

  function emit(topic: LiveTopic, data: unknown) {
    for (const fn of listeners.get(topic) ?? []) fn(data);
  }

  function setConnected(c: boolean) {
    const up = c && !connected.value;
    if (up && everConnected && summary.value) reloadSoon(0);
    if (c) everConnected = true;
    connected.value = c;
    if (up) emit('connected', null);
  }

  const onOnline = () => (online.value = true);
  const onOffline = () => (online.value = false);

  function apply(f: LiveFrame) {
    if (f.event === 'events' || f.event === 'problems' || f.event === 'hosts') emit(f.event, f.data);
    const s = summary.value;
    if (f.event === 'events' && s) {
      const m = f.data as EventsFrame;
      s.events_24h += m.total;
      for (const k of ['info', 'warning', 'high', 'critical'] as const) s.severity[k] += m.severity[k] ?? 0;
      s.daily_reports_24h += m.daily_reports;
      s.heartbeats.events_24h += m.heartbeats;
      const hour = new Date();
      hour.setUTCMinutes(0, 0, 0);
      const bucket = s.events_by_hour.find((b) => new Date(b.hour).getTime() === hour.getTime());
      if (bucket) bucket.events += m.total;
      else s.events_by_hour.push({ hour: hour.toISOString(), events: m.total });
      liveEvents.value += m.total;
      reloadSoon(10_000);
    } else if (f.event === 'hosts' && s) {
      s.hosts = { ...(f.data as HostsFrame).counts };
    } else if (f.event === 'problems') {
      reloadSoon(1000);
    }
  }

  function start() {
    if (conn) return;
    online.value = navigator.onLine;
    window.addEventListener('online', onOnline);
    window.addEventListener('offline', onOffline);
    conn = openLiveStream(apply, setConnected);
  }

  function stop() {
    conn?.close();
    conn = null;
    connected.value = false;
    everConnected = false;
    window.removeEventListener('online', onOnline);
    window.removeEventListener('offline', onOffline);
    if (reloadTimer) clearTimeout(reloadTimer);
    reloadTimer = null;
  }

  return { summary, error, connected, status, liveEvents, load, start, stop, subscribe };
});
