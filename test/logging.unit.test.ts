import { Writable } from 'node:stream';
import { ConfigError, loadConfig } from '../src/config/env';
import { createLogger, resolveLogFormat } from '../src/logging/logger';

describe('log format', () => {
  it('npm start pretty-prints in a terminal only; LOG_FORMAT forces either; api and worker stay JSON', () => {
    expect(resolveLogFormat(undefined, { prettyInTerminal: true, isTTY: true })).toBe('pretty');
    expect(resolveLogFormat(undefined, { prettyInTerminal: true, isTTY: false })).toBe('json');
    expect(resolveLogFormat(undefined, { prettyInTerminal: false, isTTY: true })).toBe('json');
    expect(resolveLogFormat('json', { prettyInTerminal: true, isTTY: true })).toBe('json');
    expect(resolveLogFormat('pretty', { prettyInTerminal: false, isTTY: false })).toBe('pretty');
  });

  it('LOG_FORMAT is validated with the rest of the configuration', () => {
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({}).logFormat).toBeUndefined();
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });

  it('pretty logs are readable lines, still redacted', async () => {
    let out = '';
    const stream = new Writable({
      write(chunk, _enc, done) {
        out += chunk.toString();
        done();
      },
    });
    const logger = createLogger('info', 'test', stream, 'pretty');
    logger.info({ requestId: 'req_1', value: 'top-secret', key: { fullKey: 'pk_live_x' } }, 'request');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(out).toMatch(/INFO.*request/);
    expect(out).toMatch(/requestId: "req_1"/);
    expect(out).not.toMatch(/top-secret|pk_live_x/);
    expect(() => JSON.parse(out.split('\n')[0])).toThrow();
  });

  it('redacts provider keys wherever a configuration is logged', async () => {
    let out = '';
    const stream = new Writable({
      write(chunk, _enc, done) {
        out += chunk.toString();
        done();
      },
    });
    const logger = createLogger('info', 'test', stream);
    logger.info({ config: { stt: { apiKey: 'sk-stt-secret' }, llm: { apiKey: 'sk-llm-secret' } } }, 'config');
    logger.info({ stt: { apiKey: 'sk-stt-2' }, apiKey: 'sk-top' }, 'config');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(out).toContain('[redacted]');
    expect(out).not.toMatch(/sk-stt-secret|sk-llm-secret|sk-stt-2|sk-top/);
  });
});
