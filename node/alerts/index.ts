/** The alert notification channels: validation of an alert's channels, sending, and the dry run. */
export { validateChannels } from './channel-config';
export { dispatchNotification, type DispatchOptions } from './dispatch';
export { dryRunChannels, type DryRunResult, type DryRunStatus } from './dry-run';
export { DEFAULT_RETRY, type RetryPolicy } from './retry';
export { defaultMessage, renderTemplate } from './template';
export {
  CHANNEL_TYPES,
  DEFAULT_CHANNEL_OPTIONS,
  type AlertChannel,
  type ChannelOptions,
  type ChannelResult,
  type ChannelType,
  type Notification,
  type NotifiedAlert,
} from './types';
