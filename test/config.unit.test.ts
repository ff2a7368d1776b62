import { Writable } from 'node:stream';
import { ConfigError, loadConfig } from '../src/config/env';
import { createLogger } from '../src/logging/logger';

describe('configuration', () => {
  it('has the defaults of docs/configuration.md', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.temporal.namespace).toBe('default');
    expect(config.webhooks.retryDelaysSeconds).toEqual([0, 60, 300, 1800, 7200]);
    expect(config.webhooks.timeoutMs).toBe(30_000);
    expect(config.outbound.allowPrivate).toBe(true);
    expect(config.defaultPlan).toBe('free');
    expect(config.rateLimits.enabled).toBe(true);
  });

  it('reads how many scenarios an agent test run drives at once: 4 unless TEST_RUN_CONCURRENCY says, 1-64', () => {
    expect(loadConfig({}).agentTests).toEqual({ runConcurrency: 4 });
    expect(loadConfig({ TEST_RUN_CONCURRENCY: '8' }).agentTests.runConcurrency).toBe(8);
    for (const bad of ['0', '65', '2.5', 'x'])
      expect(() => loadConfig({ TEST_RUN_CONCURRENCY: bad })).toThrow(/TEST_RUN_CONCURRENCY/);
  });

  it('names every bad variable', () => {
    try {
      loadConfig({
        PORT: 'abc',
        AUTH_ISSUER: 'https://idp',
        DEFAULT_PLAN: 'gold',
        WEBHOOK_RETRY_DELAYS: '0,x',
      });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const text = (error as ConfigError).problems.join('\n');
      for (const name of ['PORT', 'AUTH_ISSUER', 'DEFAULT_PLAN', 'WEBHOOK_RETRY_DELAYS'])
        expect(text).toContain(name);
    }
  });

  it('requires secrets and an identity provider in production, and refuses RATE_LIMITS=off there', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', RATE_LIMITS: 'off' })).toThrow(
      /ENCRYPTION_KEY: is required in production[\s\S]*ADMIN_TOKEN[\s\S]*AUTH_ISSUER[\s\S]*DATABASE_URL[\s\S]*RATE_LIMITS/,
    );
    const prod = loadConfig({
      NODE_ENV: 'production',
      ENCRYPTION_KEY: Buffer.alloc(32).toString('base64'),
      ADMIN_TOKEN: 'a'.repeat(32),
      AUTH_ISSUER: 'https://idp',
      AUTH_AUDIENCE: 'a',
      AUTH_JWKS_URL: 'https://idp/jwks',
      DATABASE_URL: 'postgres://db/x',
    });
    expect(prod.outbound.allowPrivate).toBe(false);
  });

  it('refuses an ADMIN_TOKEN shorter than 32 characters in production (a guessable operator token)', () => {
    const production = {
      NODE_ENV: 'production',
      ENCRYPTION_KEY: Buffer.alloc(32).toString('base64'),
      AUTH_ISSUER: 'https://idp',
      AUTH_AUDIENCE: 'a',
      AUTH_JWKS_URL: 'https://idp/jwks',
      DATABASE_URL: 'postgres://db/x',
    };
    for (const short of ['t', 'a'.repeat(31), ` ${'a'.repeat(31)} `]) {
      expect(() => loadConfig({ ...production, ADMIN_TOKEN: short })).toThrow(
        /ADMIN_TOKEN: must be at least 32 characters in production/,
      );
    }
    expect(loadConfig({ ...production, ADMIN_TOKEN: 'a'.repeat(32) }).adminToken).toBe('a'.repeat(32));
    // outside production a short token is the developer's choice (docs/configuration.md)
    expect(loadConfig({ ADMIN_TOKEN: 'dev-admin-token' }).adminToken).toBe('dev-admin-token');
  });

  it('reads speech-to-text, voice activity and recording settings, with their defaults and bounds', () => {
    const defaults = loadConfig({});
    expect(defaults.stt).toBeUndefined();
    expect(defaults.vad).toEqual({ silenceMs: 600 });
    expect(defaults.telephony.interruptMinSpeechMs).toBe(250);
    expect(defaults.recordings).toEqual({ retentionDays: 30 });
    expect(loadConfig({ STT_BASE_URL: 'http://127.0.0.1:8080/v1' }).stt).toEqual({
      baseUrl: 'http://127.0.0.1:8080/v1',
      apiKey: undefined,
      model: 'whisper-1',
      timeoutMs: 10_000,
    });
    const set = loadConfig({
      STT_BASE_URL: 'https://api.openai.com/v1',
      STT_API_KEY: ' sk-x ',
      STT_MODEL: 'gpt-4o-mini-transcribe',
      STT_TIMEOUT_MS: '2500',
      VAD_SILENCE_MS: '300',
      RECORDING_RETENTION_DAYS: '7',
    });
    expect(set.stt).toEqual({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-x',
      model: 'gpt-4o-mini-transcribe',
      timeoutMs: 2500,
    });
    expect(set.vad.silenceMs).toBe(300);
    expect(set.recordings.retentionDays).toBe(7);
    // the key alone configures nothing
    expect(loadConfig({ STT_API_KEY: 'sk-x' }).stt).toBeUndefined();
    try {
      loadConfig({
        STT_BASE_URL: 'ftp://example.com/v1',
        STT_API_KEY: 'sk-never-shown',
        STT_TIMEOUT_MS: '10',
        VAD_SILENCE_MS: '5001',
        RECORDING_RETENTION_DAYS: '0',
      });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const text = (error as ConfigError).problems.join('\n');
      expect(text).toContain('STT_BASE_URL: must be an http or https URL');
      for (const name of ['STT_TIMEOUT_MS', 'VAD_SILENCE_MS', 'RECORDING_RETENTION_DAYS'])
        expect(text).toContain(name);
      expect(text).not.toContain('sk-never-shown');
    }
    expect(() => loadConfig({ VAD_SILENCE_MS: '100', RECORDING_RETENTION_DAYS: '3650' })).not.toThrow();
    expect(() => loadConfig({ VAD_SILENCE_MS: '99' })).toThrow(/VAD_SILENCE_MS/);
    expect(() => loadConfig({ RECORDING_RETENTION_DAYS: '3651' })).toThrow(/RECORDING_RETENTION_DAYS/);
  });

  it('structured logs redact credentials and secret values', () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger('info', 'test', stream);
    logger.info(
      { value: 'v1', body: { value: 'v2' }, key: { fullKey: 'pk_live_x' }, authorization: 'Bearer y' },
      'm',
    );
    logger.info({ req: { headers: { authorization: 'Bearer z' } } }, 'request');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0])).toMatchObject({ level: 30, msg: 'm', body: { value: '[redacted]' } });
    expect(lines.join('')).not.toMatch(/v1|v2|pk_live_x|Bearer [yz]/);
  });
});
