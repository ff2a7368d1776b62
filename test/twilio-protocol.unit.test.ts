/**
 * The Twilio protocol pieces against the official `twilio` package, the oracle: our request
 * signature is the package's for any URL and parameters and our check agrees with its
 * `validateRequest` (a tampered parameter, URL or token fails both); our TwiML is the document its
 * `VoiceResponse` writes; the media stream messages parse as Twilio's documentation shows them.
 */
import fc from 'fast-check';
import twilio from 'twilio';
import {
  clearMessage,
  type MessageFromTwilioInput,
  outboundMark,
  outboundMedia,
  parseMessageFromTwilio,
  parseMessageToTwilio,
} from '../src/telephony/twilio/media-messages';
import { twilioMediaProtocol } from '../src/telephony/twilio/media-protocol';
import { paramsOfForm, twilioSignature, verifyTwilioSignature } from '../src/telephony/twilio/signature';
import {
  connectStreamTwiml,
  dialTwiml,
  hangUpTwiml,
  sayAndHangUpTwiml,
  WARM_TRANSFER_RING_S,
  whisperTwiml,
  xmlSafe,
} from '../src/telephony/twilio/twiml';

/** Characters XML 1.0 cannot carry. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const TOKEN = '12345678901234567890123456789012';

const paramName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,15}$/);
const paramValue = fc.string({ maxLength: 40, unit: 'grapheme' });
const params = fc.dictionary(
  paramName,
  fc.oneof(paramValue, fc.array(paramValue, { minLength: 1, maxLength: 3 })),
);
const url = fc
  .record({
    scheme: fc.constantFrom('https', 'http', 'wss', 'ws'),
    host: fc.constantFrom('example.com', 'api.voice.test', '127.0.0.1'),
    port: fc.constantFrom('', ':443', ':80', ':8443'),
    path: fc.array(fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/), { maxLength: 4 }),
    query: fc.option(fc.dictionary(paramName, fc.stringMatching(/^[A-Za-z0-9]{0,8}$/)), { nil: undefined }),
  })
  .map(({ scheme, host, port, path, query }) => {
    const search = query && Object.keys(query).length ? `?${new URLSearchParams(query)}` : '';
    return `${scheme}://${host}${port}/${path.join('/')}${search}`;
  });

describe('the request signature', () => {
  it("is the twilio package's for any URL and POST parameters", () => {
    fc.assert(
      fc.property(url, params, fc.string({ minLength: 1, maxLength: 40 }), (u, p, token) => {
        expect(twilioSignature(token, u, p)).toBe(twilio.getExpectedTwilioSignature(token, u, p));
      }),
      { numRuns: 500 },
    );
  });

  it('verifies what twilio signs, with or without the default port, and agrees with validateRequest', () => {
    fc.assert(
      fc.property(url, params, fc.boolean(), (u, p, signWithPort) => {
        const https = u.startsWith('https') || u.startsWith('wss');
        const signedUrl = signWithPort ? u.replace(/^(\w+:\/\/[^/:]+)\//, `$1${https ? ':443' : ':80'}/`) : u;
        const signature = twilio.getExpectedTwilioSignature(TOKEN, signedUrl, p);
        expect(verifyTwilioSignature(TOKEN, signature, u, p)).toBe(
          twilio.validateRequest(TOKEN, signature, u, p),
        );
        expect(verifyTwilioSignature(TOKEN, signature, signedUrl, p)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with validateRequest on URLs of any shape, signed as received or as normalized', () => {
    const oddUrl = fc
      .tuple(
        fc.webUrl({ withQueryParameters: true, withFragments: false }),
        fc.constantFrom('', "'", '~', '%27', ' ', 'é'),
      )
      .map(([u, odd]) => `${u}${u.includes('?') ? '&' : '?'}q=${odd}`);
    fc.assert(
      fc.property(oddUrl, params, fc.boolean(), (u, p, normalized) => {
        const signedUrl = normalized ? new URL(u).toString() : u;
        const signature = twilio.getExpectedTwilioSignature(TOKEN, signedUrl, p);
        expect(verifyTwilioSignature(TOKEN, signature, u, p)).toBe(
          twilio.validateRequest(TOKEN, signature, u, p),
        );
        expect(verifyTwilioSignature(TOKEN, signature, u, p)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a tampered parameter, URL or token, as validateRequest does', () => {
    fc.assert(
      fc.property(url, params, paramName, paramValue, (u, p, name, value) => {
        const signature = twilio.getExpectedTwilioSignature(TOKEN, u, p);
        const tampered = { ...p, [name]: `${typeof p[name] === 'string' ? p[name] : ''}${value}x` };
        const otherUrl = `${u}${u.includes('?') ? '&' : '?'}x=1`;
        const cases: [string, string, Record<string, string | string[]>][] = [
          [TOKEN, u, tampered],
          [TOKEN, otherUrl, p],
          [`${TOKEN.slice(1)}9`, u, p],
        ];
        for (const [token, at, body] of cases) {
          expect(verifyTwilioSignature(token, signature, at, body)).toBe(false);
          expect(twilio.validateRequest(token, signature, at, body)).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('signs a WebSocket upgrade over its URL alone, and refuses a missing or empty signature', () => {
    const streamUrl = 'wss://voice.example.com/api/v2/telephony/twilio/stream';
    const signature = twilio.getExpectedTwilioSignature(TOKEN, streamUrl, {});
    expect(twilioSignature(TOKEN, streamUrl)).toBe(signature);
    expect(verifyTwilioSignature(TOKEN, signature, streamUrl)).toBe(true);
    expect(
      verifyTwilioSignature(TOKEN, signature, 'wss://voice.example.com:443/api/v2/telephony/twilio/stream'),
    ).toBe(true);
    expect(verifyTwilioSignature(TOKEN, undefined, streamUrl)).toBe(false);
    expect(verifyTwilioSignature(TOKEN, '', streamUrl)).toBe(false);
    expect(verifyTwilioSignature('', twilioSignature('', streamUrl), streamUrl)).toBe(false);
  });

  it('reads a form body with a repeated parameter as the twilio package signs it', () => {
    const form = new URLSearchParams(
      'To=%2B15005550006&StatusCallbackEvent=ringing&StatusCallbackEvent=initiated&StatusCallbackEvent=ringing',
    );
    const p = paramsOfForm(form);
    expect(p).toEqual({ To: '+15005550006', StatusCallbackEvent: ['ringing', 'initiated', 'ringing'] });
    const at = 'https://example.com/status';
    expect(twilioSignature(TOKEN, at, p)).toBe(twilio.getExpectedTwilioSignature(TOKEN, at, p));
  });
});

describe('TwiML', () => {
  const oracleConnect = (streamUrl: string, parameters: Record<string, string>) => {
    const response = new twilio.twiml.VoiceResponse();
    const stream = response.connect().stream({ url: streamUrl });
    for (const [name, value] of Object.entries(parameters)) stream.parameter({ name, value });
    return response.toString();
  };
  const text = fc.string({ maxLength: 60, unit: 'binary' });

  it("<Connect><Stream> with <Parameter>s is VoiceResponse's document, escaping included", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 20 }), text), (parameters) => {
        const streamUrl = 'wss://voice.example.com/api/v2/telephony/twilio/stream';
        // VoiceResponse writes a control character into an attribute as is (a document Twilio
        // cannot read); ours refuses it
        if (Object.entries(parameters).some(([name, value]) => NOT_XML.test(name + value)))
          expect(() => connectStreamTwiml(streamUrl, parameters)).toThrow(/character/);
        else expect(connectStreamTwiml(streamUrl, parameters)).toBe(oracleConnect(streamUrl, parameters));
      }),
      { numRuns: 500 },
    );
    expect(connectStreamTwiml('wss://h/s', { token: 'a&"<>\'b' })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="wss://h/s">' +
        '<Parameter name="token" value="a&amp;&quot;&lt;>\'b"/></Stream></Connect></Response>',
    );
    expect(connectStreamTwiml('ws://127.0.0.1:5000/stream')).toBe(
      oracleConnect('ws://127.0.0.1:5000/stream', {}),
    );
  });

  it('refuses a stream URL with a query string, not ws(s), or a parameter over 500 characters', () => {
    expect(() => connectStreamTwiml('wss://h/s?token=1')).toThrow(/query string/);
    expect(() => connectStreamTwiml('https://h/s')).toThrow(/wss/);
    expect(() => connectStreamTwiml('wss://h/s', { t: 'x'.repeat(499) })).toThrow(/500/);
    expect(() => connectStreamTwiml('wss://h/s', { t: 'x'.repeat(498) })).not.toThrow();
  });

  it("<Dial> to a number or a SIP address is VoiceResponse's document", () => {
    for (const [destination, callerId] of [
      ['+14155550100', '+15551230000'],
      ['sip:desk@pbx.example.com', '+15551230000'],
      ['sips:billing&co@pbx.example.com', '+4930123456'],
    ]) {
      const response = new twilio.twiml.VoiceResponse();
      const dial = response.dial({ callerId });
      if (destination.startsWith('sip')) dial.sip(destination);
      else dial.number(destination);
      expect(dialTwiml(destination, { callerId })).toBe(response.toString());
    }
  });

  it("a warm transfer's <Dial action timeout><Number url>, its whisper and its hang-up are VoiceResponse's documents", () => {
    const actionUrl =
      'https://platform.example/api/v2/telephony/twilio/transfer/dial-ended/pn_1?callId=call_1&transfer=t%3A1';
    const whisperUrl =
      'https://platform.example/api/v2/telephony/twilio/transfer/whisper/pn_1?callId=call_1&transfer=t%3A1';
    for (const destination of ['+14155550100', 'sip:desk@pbx.example.com']) {
      const response = new twilio.twiml.VoiceResponse();
      const dial = response.dial({
        callerId: '+15551230000',
        action: actionUrl,
        timeout: WARM_TRANSFER_RING_S,
      });
      if (destination.startsWith('sip')) dial.sip({ url: whisperUrl }, destination);
      else dial.number({ url: whisperUrl }, destination);
      expect(dialTwiml(destination, { callerId: '+15551230000', actionUrl, whisperUrl })).toBe(
        response.toString(),
      );
    }
    fc.assert(
      fc.property(text, (said) => {
        // the route keeps what XML can carry of the model's summary
        const summary = xmlSafe(said);
        expect(NOT_XML.test(summary)).toBe(false);
        const response = new twilio.twiml.VoiceResponse();
        response.say(summary);
        expect(whisperTwiml(summary)).toBe(response.toString());
      }),
    );
    const hangUp = new twilio.twiml.VoiceResponse();
    hangUp.hangup();
    expect(hangUpTwiml()).toBe(hangUp.toString());
  });

  it("<Say> then <Hangup/> is VoiceResponse's document", () => {
    fc.assert(
      fc.property(
        text,
        fc.option(fc.constantFrom('alice', 'Polly.Joanna'), { nil: undefined }),
        (message, voice) => {
          const options = voice ? { voice, language: 'en-US' as const } : {};
          if (NOT_XML.test(message)) {
            expect(() => new twilio.twiml.VoiceResponse().say(options, message)).toThrow(/Invalid character/);
            expect(() => sayAndHangUpTwiml(message, options)).toThrow(/character/);
            return;
          }
          const response = new twilio.twiml.VoiceResponse();
          response.say(options, message);
          response.hangup();
          expect(sayAndHangUpTwiml(message, options)).toBe(response.toString());
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('media stream messages', () => {
  const streamSid = 'MZ18ad3ab5a668481ce02b83e7395059f0';
  const callSid = 'CA7b0f5d1d3a4f4b6d8e2c1a9f0b3d5e7f';
  const accountSid = 'AC0123456789abcdef0123456789abcdef';
  // the examples of https://www.twilio.com/docs/voice/media-streams/websocket-messages
  const documented: MessageFromTwilioInput[] = [
    { event: 'connected', protocol: 'Call', version: '1.0.0' },
    {
      event: 'start',
      sequenceNumber: '1',
      start: {
        accountSid,
        streamSid,
        callSid,
        tracks: ['inbound'],
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        customParameters: { FirstName: 'Jane', token: 'abc' },
      },
      streamSid,
    },
    {
      event: 'media',
      sequenceNumber: '3',
      media: { track: 'inbound', chunk: '1', timestamp: '5', payload: 'no+JhoaJjpzSHxAKBgYJDA==' },
      streamSid,
    },
    { event: 'dtmf', streamSid, sequenceNumber: '5', dtmf: { track: 'inbound_track', digit: '1' } },
    { event: 'mark', sequenceNumber: '4', streamSid, mark: { name: 'my label' } },
    { event: 'stop', sequenceNumber: '5', stop: { accountSid, callSid }, streamSid },
  ];

  it("hands the transport the caller's frames with Twilio's timestamp (ms from the stream's start)", () => {
    const media = documented.find((m) => m.event === 'media')!;
    expect(twilioMediaProtocol.parse(Buffer.from(JSON.stringify(media)))).toEqual({
      ok: true,
      event: { event: 'media', payload: 'no+JhoaJjpzSHxAKBgYJDA==', timestampMs: 5 },
    });
  });

  it.each(documented.map((m) => [m.event, m]))("parses Twilio's documented %s message", (_event, message) => {
    const parsed = parseMessageFromTwilio(JSON.stringify(message));
    expect(parsed).toEqual({ ok: true, message });
  });

  it('names what is wrong: not JSON, an unknown event, a field that does not fit', () => {
    expect(parseMessageFromTwilio('{nope')).toMatchObject({ ok: false, error: { name: 'NOT_JSON' } });
    expect(parseMessageFromTwilio('[1]')).toMatchObject({ ok: false, error: { name: 'NOT_JSON' } });
    expect(parseMessageFromTwilio('{"event":"hello"}')).toMatchObject({
      ok: false,
      error: { name: 'UNKNOWN_EVENT', message: expect.stringContaining('"hello"') },
    });
    const numberNotString = { ...documented[2], sequenceNumber: 3 };
    expect(parseMessageFromTwilio(JSON.stringify(numberNotString))).toMatchObject({
      ok: false,
      error: { name: 'INVALID_MESSAGE', message: expect.stringContaining('sequenceNumber') },
    });
    const start = documented[1] as Extract<MessageFromTwilioInput, { event: 'start' }>;
    const pcm = {
      ...start,
      start: { ...start.start, mediaFormat: { encoding: 'audio/l16', sampleRate: 16000, channels: 1 } },
    };
    expect(parseMessageFromTwilio(JSON.stringify(pcm))).toMatchObject({
      ok: false,
      error: { name: 'INVALID_MESSAGE', message: expect.stringContaining('start.mediaFormat.encoding') },
    });
    const badPayload = {
      ...documented[2],
      media: { track: 'inbound', chunk: '1', timestamp: '5', payload: '%%' },
    };
    expect(parseMessageFromTwilio(JSON.stringify(badPayload))).toMatchObject({
      ok: false,
      error: { name: 'INVALID_MESSAGE', message: expect.stringContaining('media.payload') },
    });
  });

  it('a start without customParameters has none', () => {
    const start = documented[1] as Extract<MessageFromTwilioInput, { event: 'start' }>;
    const { customParameters: _, ...withoutParameters } = start.start;
    const parsed = parseMessageFromTwilio(JSON.stringify({ ...start, start: withoutParameters }));
    expect(parsed.ok && parsed.message.event === 'start' && parsed.message.start.customParameters).toEqual(
      {},
    );
  });

  it("writes the platform's media, mark and clear as Twilio's documentation shows them", () => {
    const mulaw = Uint8Array.from([0xff, 0x7f, 0x00, 0x80]);
    expect(outboundMedia(streamSid, mulaw)).toEqual({
      event: 'media',
      streamSid,
      media: { payload: '/38AgA==' },
    });
    expect(outboundMark(streamSid, 'my label')).toEqual({
      event: 'mark',
      streamSid,
      mark: { name: 'my label' },
    });
    expect(clearMessage(streamSid)).toEqual({ event: 'clear', streamSid });
    for (const message of [
      outboundMedia(streamSid, mulaw),
      outboundMark(streamSid, 'x'),
      clearMessage(streamSid),
    ])
      expect(parseMessageToTwilio(JSON.stringify(message))).toEqual({ ok: true, message });
    expect(parseMessageToTwilio('{"event":"stop"}')).toMatchObject({
      ok: false,
      error: { name: 'UNKNOWN_EVENT' },
    });
  });
});
