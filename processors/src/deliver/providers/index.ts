import type { NotifyChannel } from '@watchpost/schemas';
import { chatProvider } from './chat.ts';
import { emailProvider } from './email.ts';
import { pushProvider } from './push.ts';
import type { Provider } from './provider.ts';
import { webhookProvider } from './webhook.ts';

export type { Provider, Delivery } from './provider.ts';
export const providers: Record<NotifyChannel, Provider> = {
  chat: chatProvider,
  webhook: webhookProvider,
  email: emailProvider,
  push: pushProvider,
};
