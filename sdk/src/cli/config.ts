import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { VoicePlatform } from '../client';
import { UsageError } from './command';

/**
 * The CLI's stored login: `$XDG_CONFIG_HOME/voice-platform/config.json` (else
 * `~/.config/voice-platform/config.json`), readable by its owner only. `VP_API_KEY` and
 * `VP_BASE_URL` override what it holds, for every command.
 */

export interface StoredConfig {
  apiKey?: string;
  baseUrl?: string;
  /**
   * The signing secrets `vp listen` was given, by base URL then webhook id: the platform shows a
   * listening endpoint's secret once, when it creates it.
   */
  listenSecrets?: Record<string, Record<string, string>>;
}

export interface Credentials {
  apiKey: string;
  baseUrl: string;
}

/** Where the platform is when neither the environment nor the file says (`npm run dev`'s port). */
export const DEFAULT_BASE_URL = 'http://localhost:3000';

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.trim() ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'voice-platform', 'config.json');
}

/** The stored config; an empty one when there is no file. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): StoredConfig {
  const file = configPath(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not JSON: run \`vp login\` again`);
  }
  const record = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const nonEmpty = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
  const secrets = listenSecretsOf(record.listenSecrets);
  return {
    apiKey: nonEmpty(record.apiKey),
    baseUrl: nonEmpty(record.baseUrl),
    ...(secrets ? { listenSecrets: secrets } : {}),
  };
}

/** The stored `listenSecrets`, keeping only string secrets; undefined when there are none. */
function listenSecretsOf(value: unknown): StoredConfig['listenSecrets'] {
  if (typeof value !== 'object' || value === null) return undefined;
  const secrets: Record<string, Record<string, string>> = {};
  for (const [baseUrl, byWebhook] of Object.entries(value)) {
    if (typeof byWebhook !== 'object' || byWebhook === null) continue;
    const kept = Object.entries(byWebhook as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '',
    );
    if (kept.length > 0) secrets[baseUrl] = Object.fromEntries(kept);
  }
  return Object.keys(secrets).length > 0 ? secrets : undefined;
}

/** Writes the config: the directory 0700, the file 0600 (written whole, then renamed into place). */
export function writeConfig(config: StoredConfig, env: NodeJS.ProcessEnv = process.env): string {
  const file = configPath(env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  chmodSync(dirname(file), 0o700);
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, file);
  return file;
}

/** The signing secret `vp listen` stored for a webhook of the platform at `baseUrl`. */
export function storedListenSecret(
  baseUrl: string,
  webhookId: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  return readConfig(env).listenSecrets?.[baseUrl]?.[webhookId];
}

/** The stored `vp listen` secrets, for a new login to keep (none when the file is unreadable). */
export function keptListenSecrets(env: NodeJS.ProcessEnv = process.env): StoredConfig['listenSecrets'] {
  try {
    return readConfig(env).listenSecrets;
  } catch {
    return undefined;
  }
}

/** Stores a listening endpoint's signing secret beside the login (the file stays 0600). */
export function storeListenSecret(
  baseUrl: string,
  webhookId: string,
  secret: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const config = readConfig(env);
  const secrets = config.listenSecrets ?? {};
  secrets[baseUrl] = { ...secrets[baseUrl], [webhookId]: secret };
  return writeConfig({ ...config, listenSecrets: secrets }, env);
}

/** A base URL given by the user: an http(s) origin (a path is kept), without the trailing slash. */
export function normalizeBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`Not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`The base URL must be http(s): ${value}`);
  }
  return url.toString().replace(/\/+$/, '');
}

/** The API key and base URL a command uses: the environment's, else the stored login's. */
export function resolveCredentials(env: NodeJS.ProcessEnv = process.env): Credentials {
  const stored = readConfig(env);
  const apiKey = env.VP_API_KEY?.trim() || stored.apiKey;
  if (!apiKey) throw new UsageError('Not logged in: run `vp login` (or set VP_API_KEY)');
  const baseUrl = normalizeBaseUrl(env.VP_BASE_URL?.trim() || stored.baseUrl || DEFAULT_BASE_URL);
  return { apiKey, baseUrl };
}

/** The SDK's client with the resolved credentials. */
export function clientFromConfig(env: NodeJS.ProcessEnv = process.env): VoicePlatform {
  return new VoicePlatform(resolveCredentials(env));
}
