import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { AppContext } from '../common/context';
import { type SessionStreams, sessionStreams } from '../sessions';
import { isPhoneMediaUpgrade, phoneMediaStreams } from '../telephony';

/**
 * The WebSocket upgrades on the API's port, by path: a carrier's media stream of a phone call
 * (`/api/v2/telephony/twilio/media/<call id>`), else a session's live stream.
 */
export function streamUpgrades(ctx: AppContext): SessionStreams {
  const live = sessionStreams(ctx);
  const phone = phoneMediaStreams(ctx);
  return {
    handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
      return isPhoneMediaUpgrade(req)
        ? phone.handleUpgrade(req, socket, head)
        : live.handleUpgrade(req, socket, head);
    },
    async close(): Promise<void> {
      await Promise.all([live.close(), phone.close()]);
    },
  };
}
