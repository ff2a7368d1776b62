/** A phone line's audio (docs/telephony.md "Audio on a phone line"): G.711 μ-law 8 kHz ↔ the engine's PCM16. */

export { DTMF_KEYS, dtmfTones } from './dtmf';
export {
  decodeMulaw,
  encodeMulaw,
  MULAW_SILENCE,
  PHONE_FRAME_BYTES,
  PHONE_FRAME_MS,
  PHONE_LINE_AUDIO,
  pcm16Bytes,
} from './g711';
export { ENGINE_CALLER_RATE, InboundPhoneAudio } from './inbound-phone-audio';
export { OutboundPhoneAudio } from './outbound-phone-audio';
export { PHONE_RESAMPLER_QUALITY, SincResampler } from './sinc-resampler';
