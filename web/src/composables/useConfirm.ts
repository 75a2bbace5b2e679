// The settings pages ask before an action that cannot be taken back (revoke, delete, remove): a dialog
// says what will happen, a message what did; the page's list is read again either way, since a refusal
// often means someone else changed it meanwhile.
import { useDialog, useMessage } from 'naive-ui';
import { errorText } from '../api/client';

export interface Confirmation {
  title: string;
  content: string;
  positiveText: string;
  /** `error` (red) for a deletion; `warning` otherwise. */
  kind?: 'warning' | 'error';
  /** The API call: its response's status says whether it was done. */
  run: () => Promise<{ error?: unknown; response: Response }>;
  success: string;
  /** Said when the API's answer has no message of its own. */
  failure: string;
}

/** `confirm(c)` opens the dialog; `after` runs once the confirmed call has answered (a reload). */
export function useConfirm(after: () => Promise<void>) {
  const dialog = useDialog();
  const message = useMessage();
  return function confirm(c: Confirmation): void {
    dialog[c.kind ?? 'warning']({
      title: c.title,
      content: c.content,
      positiveText: c.positiveText,
      negativeText: 'Cancel',
      onPositiveClick: async () => {
        const { error, response } = await c.run();
        if (response.ok) message.success(c.success);
        else message.error(errorText(error, c.failure));
        await after();
      },
    });
  };
}
