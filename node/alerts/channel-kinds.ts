/** Every channel type and its module. */
import type { ChannelKind } from './channel-kind';
import { chatBotChannel } from './channels/chat-bot';
import { chatWebhookChannel } from './channels/chat-webhook';
import { emailChannel } from './channels/email';
import { genericHttpChannel } from './channels/generic-http';
import { incidentPagerChannel } from './channels/incident-pager';
import { incidentPlatformChannel } from './channels/incident-platform';
import { opsAlertChannel } from './channels/ops-alert';
import { webhookChannel } from './channels/webhook';
import type { ChannelType } from './types';

export const CHANNEL_KINDS: Readonly<Record<ChannelType, ChannelKind>> = {
  webhook: webhookChannel,
  generic_http: genericHttpChannel,
  chat_webhook: chatWebhookChannel,
  chat_bot: chatBotChannel,
  incident_pager: incidentPagerChannel,
  ops_alert: opsAlertChannel,
  incident_platform: incidentPlatformChannel,
  email: emailChannel,
};
