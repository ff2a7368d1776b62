import net from 'node:net';
import type { TestApp } from '../support/test-app';
import { withAppAndDeveloper } from '../support/test-app';

let app: TestApp;
withAppAndDeveloper((a) => {
  app = a;
});

/** Sends raw bytes and reads the whole answer (the server closes the connection). */
function raw(request: string): Promise<string> {
  const { port } = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

/**
 * P12: oversized headers got Node's bare 431 with no body. They, and other requests Node refuses
 * before the API sees them, now get the JSON error body.
 */
describe('P12: requests refused by the HTTP parser', () => {
  it('headers over 16 KiB: 431 with the JSON error body', async () => {
    const answer = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(body)).toEqual({
      success: false,
      error: 'Request headers are too large (16 KiB at most)',
      code: 'VALIDATION_FAILED',
      validationErrors: ['headers: larger than 16 KiB'],
    });
  });

  it('a malformed request line: 400 with the JSON error body', async () => {
    const answer = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.split('\r\n\r\n')[1]).code).toBe('VALIDATION_FAILED');
  });
});
