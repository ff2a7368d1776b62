import { callTokenOf, clientStateOf } from '../src/telephony/telnyx/call-control';
import { parseMessageFromTelnyx, parseMessageToTelnyx } from '../src/telephony/telnyx/media-messages';
import { telnyxMediaProtocol } from '../src/telephony/telnyx/media-protocol';
import {
  statusOfEvent,
  statusOfHangupCause,
  TelnyxWebhookBody,
} from '../src/telephony/telnyx/webhook-events';

/** Telnyx's media stream messages and Call Control events, as the platform reads and writes them. */
const start = {
  event: 'start',
  sequence_number: '1',
  stream_id: '32DE0DEA-53CB-4B21-89A4-9E1819C043BC',
  start: {
    user_id: '3E6F995F-85F7-4705-9741-53B116D28237',
    call_control_id: 'v3:T02llQxIyaRkhfRKxgAP8nY511EhFLizdvdUKJiSw8d6A9BborherQ',
    call_session_id: 'ff55a038-6f5d-11ef-9692-02420aeffb1f',
    from: '+13122010094',
    to: '+13122123456',
    client_state: clientStateOf('v1.k1.iv.body'),
    custom_parameters: { customer_id: 'customer_123' },
    media_format: { encoding: 'PCMU', sample_rate: 8000, channels: 1 },
  },
};

describe('Telnyx media stream messages', () => {
  it('start hands back the call token carried as client_state', () => {
    const parsed = telnyxMediaProtocol.parse(Buffer.from(JSON.stringify(start)));
    expect(parsed).toEqual({
      ok: true,
      event: { event: 'start', streamId: start.stream_id, callToken: 'v1.k1.iv.body' },
    });
    expect(callTokenOf(null)).toBe('');
  });

  it('refuses a start in another format, and frames that are not Telnyx’s', () => {
    const pcma = {
      ...start,
      start: { ...start.start, media_format: { encoding: 'PCMA', sample_rate: 8000, channels: 1 } },
    };
    expect(parseMessageFromTelnyx(JSON.stringify(pcma))).toMatchObject({
      ok: false,
      error: { name: 'INVALID_MESSAGE' },
    });
    expect(parseMessageFromTelnyx('{"event":"hello"}')).toMatchObject({
      ok: false,
      error: { name: 'UNKNOWN_EVENT' },
    });
    expect(parseMessageFromTelnyx('not json')).toMatchObject({ ok: false, error: { name: 'NOT_JSON' } });
  });

  it('hears the caller’s track only, with its timestamp; marks, keys, errors and stop are passed on', () => {
    const media = (track: string) =>
      Buffer.from(
        JSON.stringify({
          event: 'media',
          sequence_number: '4',
          stream_id: 's',
          media: { track, chunk: '2', timestamp: '20', payload: 'f/9/' },
        }),
      );
    expect(telnyxMediaProtocol.parse(media('inbound'))).toEqual({
      ok: true,
      event: { event: 'media', payload: 'f/9/', timestampMs: 20 },
    });
    expect(telnyxMediaProtocol.parse(media('outbound'))).toEqual({ ok: true, event: { event: 'ignored' } });
    const of = (m: unknown) => telnyxMediaProtocol.parse(Buffer.from(JSON.stringify(m)));
    expect(
      of({ event: 'mark', sequence_number: '5', stream_id: 's', mark: { name: 'turn_1:0' } }),
    ).toMatchObject({ event: { event: 'mark', name: 'turn_1:0' } });
    expect(of({ event: 'dtmf', stream_id: 's', dtmf: { digit: '7' } })).toMatchObject({
      event: { event: 'dtmf', digit: '7' },
    });
    expect(
      of({ event: 'error', stream_id: 's', payload: { code: 100002, title: 'Unknown error' } }),
    ).toMatchObject({ event: { event: 'error', detail: '100002 Unknown error' } });
    expect(
      of({ event: 'stop', sequence_number: '9', stream_id: 's', stop: { call_control_id: 'v3:x' } }),
    ).toMatchObject({ event: { event: 'stop' } });
    expect(of({ event: 'connected', version: '1.0.0' })).toMatchObject({ event: { event: 'ignored' } });
  });

  it('writes media, mark and clear as Telnyx reads them', () => {
    const media = telnyxMediaProtocol.media('s', new Uint8Array([0xff, 0x7f]));
    expect(JSON.parse(media)).toEqual({ event: 'media', media: { payload: '/38=' } });
    expect(parseMessageToTelnyx(media).ok).toBe(true);
    expect(JSON.parse(telnyxMediaProtocol.mark('s', 'turn_1:0'))).toEqual({
      event: 'mark',
      mark: { name: 'turn_1:0' },
    });
    expect(JSON.parse(telnyxMediaProtocol.clear('s'))).toEqual({ event: 'clear' });
  });
});

describe('Telnyx call events', () => {
  const event = (event_type: string, payload: Record<string, unknown> = {}) =>
    TelnyxWebhookBody.parse({
      data: {
        record_type: 'event',
        id: 'e1',
        event_type,
        occurred_at: '2026-11-28T15:00:00.000Z',
        payload: { call_control_id: 'v3:x', ...payload },
      },
    }).data;

  it('maps events to the platform’s call statuses', () => {
    expect(statusOfEvent(event('call.initiated', { direction: 'outgoing' }))).toBe('queued');
    expect(statusOfEvent(event('call.answered'))).toBe('in-progress');
    expect(statusOfEvent(event('call.hangup', { hangup_cause: 'normal_clearing' }))).toBe('completed');
    expect(statusOfEvent(event('streaming.started'))).toBeUndefined();
  });

  it.each([
    ['normal_clearing', 'completed'],
    ['time_limit', 'completed'],
    ['user_busy', 'busy'],
    ['timeout', 'no-answer'],
    ['no_answer', 'no-answer'],
    ['originator_cancel', 'canceled'],
    ['call_rejected', 'failed'],
    ['not_found', 'failed'],
    ['unspecified', 'failed'],
    [undefined, 'failed'],
  ] as const)('hangup_cause %s is %s', (cause, status) => {
    expect(statusOfHangupCause(cause)).toBe(status);
  });

  it('refuses a body that is not an event about a call', () => {
    expect(
      TelnyxWebhookBody.safeParse({ data: { id: 'e1', event_type: 'call.answered', payload: {} } }).success,
    ).toBe(false);
    expect(TelnyxWebhookBody.safeParse({ event_type: 'call.answered' }).success).toBe(false);
  });
});
