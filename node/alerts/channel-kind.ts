/** What each channel type module provides: its config fields, how it sends, and where to. */
import type { ConfigFields } from './config-fields';
import type { ChannelOptions, ChannelType, Notification } from './types';

export interface ChannelKind {
  type: ChannelType;
  fields: ConfigFields;
  /** Sends one notification; throws a SendError (http-send.ts) or any Error when it fails. */
  send(config: Record<string, unknown>, notification: Notification, options: ChannelOptions): Promise<void>;
  /** The URL (or `smtp://host:port`) a send goes to: what a dry run checks. */
  target(config: Record<string, unknown>, options: ChannelOptions): string;
}
