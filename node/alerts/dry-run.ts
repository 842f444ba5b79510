/**
 * The channels a firing would notify, checked without sending anything (`POST /alerts/{id}/test`'s
 * `channels_that_would_fire`). The check is only that the target's host name resolves:
 * `reachable` when it does, `unresolved` when DNS has no address for it (or takes longer than the
 * send timeout), `invalid_url` when the target is no URL. Nothing is connected to: a dry run must
 * not reach a vendor, and a resolving host can still refuse the real send.
 */
import { lookup } from 'node:dns/promises';
import { CHANNEL_KINDS } from './channel-kinds';
import { channelName, DEFAULT_CHANNEL_OPTIONS, type AlertChannel, type ChannelOptions, type ChannelType } from './types';

export type DryRunStatus = 'reachable' | 'unresolved' | 'invalid_url';

export interface DryRunResult {
  type: ChannelType;
  name: string;
  status: DryRunStatus;
}

export async function dryRunChannels(channels: readonly AlertChannel[], options: Partial<ChannelOptions> = {}): Promise<DryRunResult[]> {
  const channelOptions: ChannelOptions = { ...DEFAULT_CHANNEL_OPTIONS, ...options };
  const enabled = channels.filter((channel) => channel.enabled);
  return Promise.all(
    enabled.map(async (channel) => ({
      type: channel.type,
      name: channelName(channel),
      status: await checkTarget(CHANNEL_KINDS[channel.type].target(channel.config, channelOptions), channelOptions.sendTimeoutMs),
    })),
  );
}

async function checkTarget(target: string, timeoutMs: number): Promise<DryRunStatus> {
  let host: string;
  try {
    // URL keeps an IPv6 literal's brackets; lookup wants the address alone.
    host = new URL(target).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return 'invalid_url';
  }
  if (host === '') return 'invalid_url';
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<DryRunStatus>((resolve) => {
    timer = setTimeout(() => resolve('unresolved'), timeoutMs);
  });
  try {
    return await Promise.race([
      lookup(host).then(
        (): DryRunStatus => 'reachable',
        (): DryRunStatus => 'unresolved',
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
