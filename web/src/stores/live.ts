// The dashboard summary kept current by the live stream: `events` frames add to the counters at once;
// `problems` and `hosts` frames (and, at most every 10 s, `events`) reload the summary's lists. No polling.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { api, errorText, type Summary } from '../api/client';
import { openLiveStream, type LiveConnection, type LiveFrame } from '../api/live';

interface EventsFrame {
  kind: 'events';
  total: number;
  severity: Record<'info' | 'warning' | 'high' | 'critical', number>;
  daily_reports: number;
  heartbeats: number;
}
interface HostsFrame {
  kind: 'hosts';
  counts: { total: number; online: number; stale: number };
}

export const useLive = defineStore('live', () => {
  const summary = ref<Summary | null>(null);
  const error = ref('');
  const connected = ref(false);
  const liveEvents = ref(0);
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

  function apply(f: LiveFrame) {
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
    conn = openLiveStream(apply, (c) => (connected.value = c));
  }

  function stop() {
    conn?.close();
    conn = null;
    connected.value = false;
    if (reloadTimer) clearTimeout(reloadTimer);
    reloadTimer = null;
  }

  return { summary, error, connected, liveEvents, load, start, stop };
});
