// A view's subscriptions to the live stream's frames (stores/live.ts), from mount to unmount.
import { onMounted, onUnmounted } from 'vue';
import { useLive, type LiveTopic } from '../stores/live';

export function useLiveFrames(handlers: Partial<Record<LiveTopic, (data: unknown) => void>>): void {
  const live = useLive();
  const off: (() => void)[] = [];
  onMounted(() => {
    for (const [topic, fn] of Object.entries(handlers) as [LiveTopic, (data: unknown) => void][])
      off.push(live.subscribe(topic, fn));
  });
  onUnmounted(() => {
    for (const u of off.splice(0)) u();
  });
}
