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
  return { apiKey: nonEmpty(record.apiKey), baseUrl: nonEmpty(record.baseUrl) };
}

/** Writes the config: the directory 0700, the file 0600 (written whole, then renamed into place). */
export function writeConfig(config: Required<StoredConfig>, env: NodeJS.ProcessEnv = process.env): string {
  const file = configPath(env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  chmodSync(dirname(file), 0o700);
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, file);
  return file;
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
