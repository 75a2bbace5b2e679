// The routes of every settings section (core/src/settings/section.ts), mounted from the sections: GET
// /settings/<path> answers the view (secrets only as whether they are set), PUT takes the body (its
// schema validates it: 400 VALIDATION_FAILED), saves it (a body the section refuses: 400 VALIDATION_FAILED
// with its reason), logs it in the audit (secrets only as set, removed or unchanged) and answers the view.
// Admin only. A new section is its file in core and its entry in REMOTE_ACCESS_SECTIONS: no API file changes.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { auditableInput, saveSection, sectionView, SettingRefused } from '@watchpost/core/settings';
import { loadSecretsKey } from '@watchpost/core/secrets';
import { REMOTE_ACCESS_SECTIONS } from '@watchpost/core/actions';
import type { AnySettingsSection } from '@watchpost/core/settings';
import { ApiError } from '../../errors.ts';
import { auditCaller } from '../shared/audit.ts';

const tags = ['settings'];

/** Mounts GET and PUT /settings/<path> of one section. */
export function mountSettingsSection(app: FastifyInstance, section: AnySettingsSection, secretsKey: () => Promise<Buffer>): void {
  const { pg, config } = app.deps;
  const url = `/settings/${section.path}`;
  const response = { 200: section.viewSchema };

  app.get(url, { config: { access: 'admin' }, schema: { tags, summary: section.get.summary, response } }, async () =>
    sectionView(pg, section, config),
  );

  app.put(
    url,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: section.put.summary,
        ...(section.put.description === undefined ? {} : { description: section.put.description }),
        body: section.bodySchema,
        response,
      },
    },
    async (req) => {
      // The secrets key is read (or made) only for a section that has secrets.
      const key = section.secrets.length > 0 ? await secretsKey() : undefined;
      // The body is the section's schema's, validated (its type is erased with the section's).
      const body = req.body as object;
      try {
        await saveSection(pg, section, config, key, body, req.user!.username);
      } catch (err) {
        if (err instanceof SettingRefused) throw new ApiError(400, 'VALIDATION_FAILED', err.message);
        throw err;
      }
      await auditCaller(pg, req, section.auditAction, { details: auditableInput(section, body, section.auditUnchangedSecrets) });
      return sectionView(pg, section, config);
    },
  );
}

/** Remote access (Settings → Remote access): WinRM, target networks, SSH. */
const remoteAccessSettingsRoutes: FastifyPluginAsync = async (app) => {
  const { config } = app.deps;
  let secretsKey: Promise<Buffer> | undefined;
  const key = () => (secretsKey ??= loadSecretsKey(config.actions.secretsKey, config.stateDir));
  for (const section of REMOTE_ACCESS_SECTIONS) mountSettingsSection(app, section, key);
};

export default remoteAccessSettingsRoutes;
