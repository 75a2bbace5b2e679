// The `settings` table (key -> JSON value, who saved it and when) and a section's view and save over it.
import type { Pool } from '@watchpost/runtime';
import {
  NO_SECRETS,
  sectionCrypt,
  type AnySettingsSection,
  type SectionEnv,
  type SettingsSection,
  type SettingsTypes,
} from './section.ts';

export async function readSetting<T>(pg: Pool, key: string): Promise<T | undefined> {
  const r = await pg.query<{ value: T }>('SELECT value FROM settings WHERE key = $1', [key]);
  return r.rows[0]?.value;
}

export async function writeSetting(pg: Pool, key: string, value: unknown, by: string): Promise<void> {
  await pg.query(
    `INSERT INTO settings (key, value, updated_at, updated_by) VALUES ($1, $2, now(), $3)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now(), updated_by = EXCLUDED.updated_by`,
    [key, JSON.stringify(value), by],
  );
}

/** The section's stored value (`{}` when never saved). */
export async function readSection<T extends SettingsTypes>(pg: Pool, section: SettingsSection<T>): Promise<T['stored']> {
  return (await readSetting<T['stored']>(pg, section.key)) ?? {};
}

/** What the API shows: the saved values over the environment's, secrets only as whether they are set. */
export async function sectionView<T extends SettingsTypes>(
  pg: Pool,
  section: SettingsSection<T>,
  env: SectionEnv,
): Promise<T['view']> {
  return section.view(await readSection(pg, section), section.defaults(env));
}

/**
 * Saves a body (validated by the section's schema): fields left out keep their stored value. Throws
 * SettingRefused, before anything is written, when the section refuses it. `secretsKey`: needed when the
 * section has secrets.
 */
export async function saveSection<T extends SettingsTypes>(
  pg: Pool,
  section: SettingsSection<T>,
  env: SectionEnv,
  secretsKey: Buffer | undefined,
  body: T['body'],
  by: string,
): Promise<void> {
  const crypt = secretsKey ? sectionCrypt(section as AnySettingsSection, secretsKey) : NO_SECRETS;
  const next = section.save(await readSection(pg, section), body, section.defaults(env), crypt);
  await writeSetting(pg, section.key, next, by);
}
