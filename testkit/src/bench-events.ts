// The benches' ~1 KB events: a template per host (32 hosts), the event_id spliced in per event.
import { randomUUID } from 'node:crypto';
import { sampleEvent } from '@watchpost/schemas/fixtures';

const PLACEHOLDER = '00000000-0000-4000-8000-000000000000';
const templates = Array.from({ length: 32 }, (_, i) => {
  const ev = sampleEvent({
    event_id: PLACEHOLDER,
    host: { hostname: `bench-host-${i}`, os_family: i % 2 ? 'windows' : 'linux', display_name: `Bench host ${i}` },
  });
  ev.summary = `${ev.summary} ${'x'.repeat(300)}`;
  return { hostname: ev.host.hostname, parts: JSON.stringify(ev).split(PLACEHOLDER) as [string, string] };
});
let n = 0;

/** The next distinct event: its host (the Kafka key) and its JSON text. */
export function benchEvent(): { hostname: string; json: string } {
  const t = templates[n++ % templates.length]!;
  return { hostname: t.hostname, json: t.parts[0] + randomUUID() + t.parts[1] };
}
