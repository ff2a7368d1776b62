import { randomBytes } from 'node:crypto';
import http from 'node:http';

/** A REST request the stub received, its form parsed. */
export interface StubRequest {
  path: string;
  authorization: string | undefined;
  form: URLSearchParams;
}

/**
 * How the stub answers `Calls.json`: `place` (201 with a `CA…` sid), `refuse` (Twilio's 400 for a
 * bad `To`), or `stall` (takes the request, answers only after `stallMs`: the caller's deadline has
 * passed, so the outcome is unknown to it although the call was placed).
 */
export type StubMode = 'place' | 'refuse' | 'stall';

/**
 * A minimal local stand-in for Twilio's REST API (TWILIO_API_BASE_URL) that records every request:
 * the calls tests drive the statuses themselves with signed callbacks, so nothing here calls back.
 */
export class CarrierStub {
  url = '';
  mode: StubMode = 'place';
  stallMs = 4_000;
  readonly requests: StubRequest[] = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => this.answer(req, res, Buffer.concat(chunks).toString('utf8')));
  });

  /** The `Calls.json` requests (placed calls), not the hang-ups. */
  get placed(): StubRequest[] {
    return this.requests.filter((r) => r.path.endsWith('/Calls.json'));
  }

  async listen(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  /** Refuses every connection for `ms` (its port closed), then listens on the same port again. */
  async unreachableFor(ms: number): Promise<void> {
    const port = Number(new URL(this.url).port);
    await this.close();
    setTimeout(() => this.server.listen(port, '127.0.0.1'), ms);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse, body: string) {
    const path = req.url ?? '';
    this.requests.push({ path, authorization: req.headers.authorization, form: new URLSearchParams(body) });
    const json = (status: number, value: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (!path.endsWith('/Calls.json')) return json(200, { status: 'completed' });
    if (this.mode === 'refuse') {
      return json(400, { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 });
    }
    const sid = `CA${randomBytes(16).toString('hex')}`;
    if (this.mode === 'stall')
      return void setTimeout(() => json(201, { sid, status: 'queued' }), this.stallMs);
    json(201, { sid, status: 'queued' });
  }
}

export const startCarrierStub = () => new CarrierStub().listen();
