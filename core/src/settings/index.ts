// A feature's settings said once (section.ts) and the `settings` table under them (store.ts).
export {
  auditableInput,
  SettingRefused,
  type AnySettingsSection,
  type SectionEnv,
  type SettingsPart,
  type SettingsSection,
  type SettingsTypes,
} from './section.ts';
export { readSetting, saveSection, sectionView, writeSetting } from './store.ts';
