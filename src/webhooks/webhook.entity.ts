import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import { newId } from '../common/ids';
import type { Environment } from '../common/owner';
import { ownedResourceProperties, timestampProperties } from '../db/entity-properties';

import type { DisabledReason, SigningAlgorithm, WebhookKind, WebhookStatus } from './statuses';

/**
 * A webhook subscription (`wh_…`). The signing secret is stored encrypted; after a rotation the
 * previous one keeps signing (as a second `v1`) until `previousSecretExpiresAt`.
 */
export class Webhook {
  [OptionalProps]?:
    | 'id'
    | 'createdAt'
    | 'updatedAt'
    | 'enabled'
    | 'failing'
    | 'personaId'
    | 'includeTestRuns'
    | 'previousSecretCiphertext'
    | 'previousSecretExpiresAt'
    | 'failingSince'
    | 'disabledAt'
    | 'disabledReason'
    | 'signingAlgorithm'
    | 'signingPublicKey'
    | 'signingKeyCiphertext'
    | 'kind'
    | 'listenerTaskQueue'
    | 'listenerConnectionId';
  id: string = newId('wh');
  account!: string;
  environment!: Environment;
  name!: string;
  url!: string;
  events!: string[];
  enabled = true;
  personaId?: string | null;
  /** Also gets the events of agent-test runs' sessions (docs/webhooks.md "Test runs"). */
  includeTestRuns = false;
  secretCiphertext!: string;
  previousSecretCiphertext?: string | null;
  previousSecretExpiresAt?: Date | null;
  /** Set when a delivery exhausts its attempts; cleared by the next successful delivery. */
  failing = false;
  /** The first failed attempt since the last successful one (auto-disabling counts from it). */
  failingSince?: Date | null;
  /** When and why it was disabled: `manual` (PUT), `failing` (auto-disabled) or `gone` (a 410). */
  disabledAt?: Date | null;
  disabledReason?: DisabledReason | null;
  /** `hmac-sha256` (`v1`) or `ed25519` (`v1a`, with the key pair below). */
  signingAlgorithm: SigningAlgorithm = 'hmac-sha256';
  /** `whpk_…`: the Ed25519 public key receivers verify `v1a` with. */
  signingPublicKey?: string | null;
  /** The Ed25519 private key (PKCS#8 DER, base64), encrypted. */
  signingKeyCiphertext?: string | null;
  /** `endpoint`, or the account's `listener`: its deliveries go down a `vp listen` WebSocket. */
  kind: WebhookKind = 'endpoint';
  /** A listener's: the task queue of the API process holding its socket (null while none is). */
  listenerTaskQueue?: string | null;
  /** A listener's: the connection holding it (a newer one takes over). */
  listenerConnectionId?: string | null;
  createdAt: Date = new Date();
  updatedAt: Date = new Date(this.createdAt);
}

export const WebhookSchema = new EntitySchema<Webhook>({
  class: Webhook,
  tableName: 'webhooks',
  properties: {
    ...ownedResourceProperties(),
    name: { type: 'string', length: 100 },
    url: { type: 'string', length: 2048 },
    events: { type: 'string[]', columnType: 'text[]' },
    enabled: { type: 'boolean' },
    personaId: { type: 'string', length: 64, nullable: true },
    includeTestRuns: { type: 'boolean', default: false },
    secretCiphertext: { type: 'text' },
    previousSecretCiphertext: { type: 'text', nullable: true },
    previousSecretExpiresAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    failing: { type: 'boolean' },
    failingSince: { type: 'Date', columnType: 'timestamptz', nullable: true },
    disabledAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    disabledReason: { type: 'string', length: 16, nullable: true },
    signingAlgorithm: { type: 'string', length: 16, default: 'hmac-sha256' },
    signingPublicKey: { type: 'text', nullable: true },
    signingKeyCiphertext: { type: 'text', nullable: true },
    kind: { type: 'string', length: 16, default: 'endpoint' },
    listenerTaskQueue: { type: 'string', length: 200, nullable: true },
    listenerConnectionId: { type: 'string', length: 40, nullable: true },
    ...timestampProperties(),
  },
});

export function webhookStatus(w: Pick<Webhook, 'enabled' | 'failing'>): WebhookStatus {
  if (!w.enabled) return 'disabled';
  return w.failing ? 'failing' : 'active';
}

/** Additional data binding a webhook's secret ciphertext to its row and owner. */
export const webhookSecretAad = (id: string, accountId: string, environment: string) =>
  `webhook-secret:${id}:${accountId}:${environment}`;

/** The same for the previous secret, kept after a rotation of the webhook's secret. */
export const webhookPreviousSecretAad = (id: string, accountId: string, environment: string) =>
  `${webhookSecretAad(id, accountId, environment)}:previous`;

/** The same for an Ed25519 webhook's private signing key. */
export const webhookSigningKeyAad = (id: string, accountId: string, environment: string) =>
  `webhook-signing-key:${id}:${accountId}:${environment}`;
