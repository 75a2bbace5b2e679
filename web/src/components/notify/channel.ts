// What every notification channel form does (Settings → Notifications): load the channel's settings
// (when the form is mounted), switch it on or off, save, remove a stored secret, send a test. Each
// channel's own fields are its form component (one per channel name, listed in FORMS in ./forms.ts);
// bodies are typed by the API contract.
import { onMounted, reactive } from 'vue';
import { useMessage } from 'naive-ui';
import { api, errorText, type Ok } from '../../api/client';
import type { operations } from '../../api/schema';

export type NotifyChannel = Ok<'getNotificationPolicy'>['channels'][number];
/** The settings body of channel C (PUT .../channels/<C>): fields left out keep their value. */
export type ChannelBody<C extends NotifyChannel> = NonNullable<
  operations[`putNotificationChannel_${C}`]['requestBody']
>['content']['application/json'];
/** A channel's settings as the API shows them (secrets only as `*_set`). */
export type ChannelView = Record<string, unknown>;
export type TestResult = Ok<'testNotificationChannel_chat'>['results'][number];

export interface ChannelForm<C extends NotifyChannel> {
  /** Puts the loaded settings into the form (secret inputs empty: an empty secret keeps the stored one). */
  fill?(view: ChannelView): void;
  /** The channel's own fields (its Enabled switch is this file's: every channel has one). */
  body?(): Omit<ChannelBody<C>, 'enabled'>;
  /** Why the form cannot be saved as it is (checked before saving, web/src/lib/validate.ts), or null. */
  problem?(): string | null;
}

export const str = (v: unknown) => (typeof v === 'string' ? v : '');
/** A comma or line separated list. */
export const list = (s: string) =>
  s
    .split(/[,\n]/)
    .map((x) => x.trim())
    .filter(Boolean);
export const joined = (v: unknown) => ((v as string[] | undefined) ?? []).join(', ');

export function useChannel<C extends NotifyChannel>(channel: C, form: ChannelForm<C>, onLoadError: (text: string) => void) {
  const message = useMessage();
  const c: NotifyChannel = channel;
  const state = reactive({ enabled: true, error: '', testing: false, results: null as TestResult[] | null });

  async function load() {
    const { data, error } = await api.GET(`/api/v1/settings/notifications/channels/${c}`);
    if (!data) {
      onLoadError(errorText(error, 'Could not load the notification settings'));
      return;
    }
    state.enabled = (data as ChannelView).enabled !== false;
    form.fill?.(data as ChannelView);
  }

  async function save() {
    state.error = form.problem?.() ?? '';
    if (state.error) return;
    const { data, error } = await api.PUT(`/api/v1/settings/notifications/channels/${c}`, {
      body: { enabled: state.enabled, ...form.body?.() } as never,
    });
    if (!data) {
      state.error = errorText(error, 'Could not save');
      return;
    }
    message.success(`${channel} saved`);
    await load();
  }

  async function removeSecret(field: string) {
    const { data, error } = await api.PUT(`/api/v1/settings/notifications/channels/${c}`, { body: { [field]: null } as never });
    if (data) message.success('Stored secret removed');
    else state.error = errorText(error, 'Could not remove');
    await load();
  }

  async function test() {
    state.testing = true;
    state.results = null;
    const { data, error } = await api.POST(`/api/v1/settings/notifications/channels/${c}/test`);
    state.testing = false;
    if (data) state.results = data.results;
    else state.error = errorText(error, 'The test could not be sent');
  }

  const enable = (on: boolean) => {
    state.enabled = on;
  };

  onMounted(load);
  return { channel, state, load, enable, save, removeSecret, test };
}

export type ChannelControl = ReturnType<typeof useChannel>;
