// What every remote-access section form does (Settings → Remote access): load the section's view from
// GET /settings/<path> and save a body with PUT /settings/<path> (core/src/actions/settings/<path>.ts,
// mounted by api/src/routes/settings/mount.ts), the answer being the new view. Each section's own fields
// are its form component here; bodies and views are typed by the API contract.
import { onMounted, ref, type Ref } from 'vue';
import { useMessage } from 'naive-ui';
import { api, errorText, type Ok } from '../../api/client';
import type { operations } from '../../api/schema';

type Body<K extends keyof operations> = NonNullable<operations[K]['requestBody']>['content']['application/json'];

/** The remote-access sections the API mounts (core's REMOTE_ACCESS_SECTIONS): view and body of each. */
export interface Sections {
  winrm: { view: Ok<'getSettingsWinrm'>; body: Body<'putSettingsWinrm'> };
  'target-networks': { view: Ok<'getSettingsTargetNetworks'>; body: Body<'putSettingsTargetNetworks'> };
  ssh: { view: Ok<'getSettingsSsh'>; body: Body<'putSettingsSsh'> };
}

/** Where a value in force comes from, in words. */
export const sourceText = (s: string | null | undefined) =>
  s === 'database' ? 'set here' : s === 'environment' ? 'set by the environment' : 'not set';

/**
 * The section's view, loaded when the form is mounted (null until then: a form saved before that would
 * overwrite the settings with the defaults) and its save; `fill` puts a view into the form (secret inputs
 * empty: empty keeps the stored one).
 */
export function useSection<P extends keyof Sections>(
  path: P,
  fill: (view: Sections[P]['view']) => void,
  onLoadError: (text: string) => void,
) {
  type View = Sections[P]['view'];
  const message = useMessage();
  const view = ref(null) as Ref<View | null>;
  const p: keyof Sections = path;

  function show(v: View) {
    view.value = v;
    fill(v);
  }

  async function load() {
    const { data, error } = await api.GET(`/api/v1/settings/${p}`);
    if (data) show(data as View);
    else onLoadError(errorText(error, 'Could not load the settings'));
  }

  /** Saves the body; on success the answer is shown and `success` said. */
  async function save(body: Sections[P]['body'], success: string) {
    const { data, error } = await api.PUT(`/api/v1/settings/${p}`, { body: body as never });
    if (data) {
      show(data as View);
      message.success(success);
    } else message.error(errorText(error, 'Could not save'));
  }

  onMounted(load);
  return { view, load, save };
}
