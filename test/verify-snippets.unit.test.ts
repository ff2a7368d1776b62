import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateWebhookSecret, signatureHeaders } from '../src/webhooks/signature';
import { VERIFY_SNIPPETS } from '../web/src/pages/webhooks/verify-snippets';

/** The console's copyable receiver code (the webhook page) accepts real deliveries and nothing else. */
describe('the webhook page’s verification snippets', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vp-verify-'));
  const secret = generateWebhookSecret();
  const previous = generateWebhookSecret();
  const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', data: { ok: true, text: 'café ☕' } });
  const header = signatureHeaders([secret, previous], 'evt_1', body)['X-Service-Signature'];
  const stale = signatureHeaders([secret], 'evt_1', body, new Date(Date.now() - 600_000))[
    'X-Service-Signature'
  ];
  const cases: [string, string, string, boolean][] = [
    ['a delivery signed with the secret', body, secret, true],
    ['a delivery during a rotation, checked with the previous secret', body, previous, true],
    ['a body changed on the way', body.replace('true', 'false'), secret, false],
    ['another secret', body, generateWebhookSecret(), false],
  ];

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('Node.js', () => {
    const run = (raw: string, signature: string, key: string) =>
      execFileSync(process.execPath, [
        '--input-type=module',
        '-e',
        `${VERIFY_SNIPPETS.node}\nconst [raw, header, key] = process.argv.slice(1);\nconsole.log(verify(Buffer.from(raw), header, key));`,
        raw,
        signature,
        key,
      ])
        .toString()
        .trim();
    for (const [what, raw, key, expected] of cases) {
      expect([what, run(raw, header, key)]).toEqual([what, String(expected)]);
    }
    expect(run(body, stale, secret)).toBe('false');
  });

  it('Python', () => {
    const file = path.join(dir, 'verify.py');
    const run = (raw: string, signature: string, key: string) =>
      execFileSync('python3', [
        '-c',
        `${VERIFY_SNIPPETS.python}\nimport sys\nprint(verify(sys.argv[1].encode(), sys.argv[2], sys.argv[3]))`,
        raw,
        signature,
        key,
      ])
        .toString()
        .trim();
    fs.writeFileSync(file, VERIFY_SNIPPETS.python);
    for (const [what, raw, key, expected] of cases) {
      expect([what, run(raw, header, key)]).toEqual([what, expected ? 'True' : 'False']);
    }
    expect(run(body, stale, secret)).toBe('False');
  });
});
