/**
 * `email`: one message over SMTP (nodemailer) to `smtp_host:smtp_port`, a subject naming the alert
 * and a text body of the default message and the result row. Port 465 speaks TLS from the start;
 * any other port upgrades with STARTTLS when the server offers it. An SMTP 5xx answer (a refused
 * recipient) is permanent and not retried.
 */
import nodemailer from 'nodemailer';
import type { ChannelKind } from '../channel-kind';
import { emailAddressField, emailAddressList, port, text } from '../config-fields';
import { SendError } from '../http-send';
import { defaultMessage, markTest, valueText } from '../template';
import type { Notification } from '../types';

/** The subject and text body of an alert's email. */
export function emailContent(notification: Notification): { subject: string; text: string } {
  const { alert, result, timestamp } = notification;
  const subject = markTest(`[Trawl] alert "${valueText(alert.name)}" triggered`, notification);
  const lines = [
    markTest(defaultMessage(notification), notification),
    '',
    `Alert: ${valueText(alert.name)} (${alert.id})`,
    `Query: ${alert.q}`,
    `Interval: ${alert.interval}`,
    `Evaluated at: ${timestamp}`,
    '',
    'Result:',
    ...Object.entries(result).map(([column, value]) => `  ${column} = ${valueText(value)}`),
  ];
  return { subject, text: `${lines.join('\n')}\n` };
}

export const emailChannel: ChannelKind = {
  type: 'email',
  fields: {
    to: emailAddressList({ required: true }),
    from: emailAddressField({ required: true }),
    smtp_host: text({ required: false, default: 'localhost' }),
    smtp_port: port({ required: false, default: 587 }),
  },
  send: async (config, notification, options) => {
    const timeoutMs = options.sendTimeoutMs;
    const smtpPort = config.smtp_port as number;
    const transport = nodemailer.createTransport({
      host: config.smtp_host as string,
      port: smtpPort,
      secure: smtpPort === 465,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
    let timer: NodeJS.Timeout | undefined;
    // nodemailer's limits are per phase; this one bounds the whole send.
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new SendError(`no answer within ${timeoutMs} ms`, true)), timeoutMs);
    });
    try {
      const { subject, text: body } = emailContent(notification);
      await Promise.race([transport.sendMail({ from: config.from as string, to: config.to as string[], subject, text: body }), deadline]);
    } catch (error) {
      if (error instanceof SendError) throw error;
      // nodemailer's own phase limits equal ours, so either may fire first: one wording for both.
      if ((error as { code?: unknown }).code === 'ETIMEDOUT') {
        const phase = error instanceof Error ? ` (${error.message})` : '';
        throw new SendError(`no answer within ${timeoutMs} ms${phase}`, true);
      }
      const responseCode = (error as { responseCode?: unknown }).responseCode;
      const message = error instanceof Error ? error.message : String(error);
      throw new SendError(message, !(typeof responseCode === 'number' && responseCode >= 500));
    } finally {
      clearTimeout(timer);
      transport.close();
    }
  },
  target: (config) => `smtp://${config.smtp_host as string}:${config.smtp_port as number}`,
};
