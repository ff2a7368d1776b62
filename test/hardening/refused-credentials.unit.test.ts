import type { IncomingMessage } from 'node:http';
import { clientAddress } from '../../src/auth/refused-credentials';

const upgrade = (peer: string, forwardedFor?: string) =>
  ({
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    socket: { remoteAddress: peer },
  }) as unknown as IncomingMessage;

/** A stream upgrade never reaches Express: its address is derived as Express derives `req.ip`. */
describe('the client address of a request Express never sees', () => {
  it('is the peer without TRUST_PROXY, whatever X-Forwarded-For claims', () => {
    expect(clientAddress(upgrade('127.0.0.1', '198.51.100.7'), [])).toBe('127.0.0.1');
  });

  it('is the address a trusted proxy forwards, and only from that proxy', () => {
    const trust = ['loopback'];
    expect(clientAddress(upgrade('127.0.0.1', '198.51.100.7'), trust)).toBe('198.51.100.7');
    // the nearest untrusted hop: a client cannot prepend an address of its choosing
    expect(clientAddress(upgrade('127.0.0.1', '203.0.113.1, 198.51.100.7'), trust)).toBe('198.51.100.7');
    expect(clientAddress(upgrade('192.0.2.10', '198.51.100.7'), trust)).toBe('192.0.2.10');
    expect(clientAddress(upgrade('10.0.0.2', '198.51.100.7'), ['10.0.0.0/8'])).toBe('198.51.100.7');
  });
});
