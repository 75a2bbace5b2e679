// One settings form per notification channel, keyed by the API's channel names: a channel the API
// lists without a form here (or the reverse) does not type-check.
import type { Component } from 'vue';
import type { NotifyChannel } from './channel';
import ChatForm from './ChatForm.vue';
import EmailForm from './EmailForm.vue';
import PushForm from './PushForm.vue';
import WebhookForm from './WebhookForm.vue';

export const FORMS: Record<NotifyChannel, Component> = { chat: ChatForm, webhook: WebhookForm, email: EmailForm, push: PushForm };
/** In the order the page shows them. */
export const CHANNELS = Object.keys(FORMS) as NotifyChannel[];
