import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { AppContext } from '../common/context';
import { type SessionStreams, sessionStreams } from '../sessions';
import { isPhoneMediaUpgrade, phoneMediaStreams } from '../telephony';
import { LISTEN_PATH, webhookListenStreams } from '../webhooks';

/**
 * The WebSocket upgrades on the API's port, by path: a carrier's media stream of a phone call
 * (`/api/v2/telephony/twilio/media/<call id>`), a `vp listen` (`/api/v2/developers/webhooks/listen`),
 * else a session's live stream.
 */
export function streamUpgrades(ctx: AppContext): SessionStreams {
  const live = sessionStreams(ctx);
  const phone = phoneMediaStreams(ctx);
  const listen = webhookListenStreams(ctx);
  return {
    handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
      if (isPhoneMediaUpgrade(req)) return phone.handleUpgrade(req, socket, head);
      if (new URL(req.url ?? '/', 'http://localhost').pathname === LISTEN_PATH)
        return listen.handleUpgrade(req, socket, head);
      return live.handleUpgrade(req, socket, head);
    },
    async close(): Promise<void> {
      await Promise.all([live.close(), phone.close(), listen.close()]);
    },
  };
}
