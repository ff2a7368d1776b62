/**
 * The TwiML documents the platform answers a Twilio voice webhook with
 * (https://www.twilio.com/docs/voice/twiml): `<Connect><Stream>` to put the call on a bidirectional
 * media stream, and `<Say>` then `<Hangup/>` to refuse a call politely. Written as the official
 * `twilio` package's `VoiceResponse` writes them (the same characters for the same input: its
 * XML declaration, no whitespace between elements, its escaping), so a test compares the two
 * byte for byte. Pure: strings only.
 */

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';
/** Characters XML 1.0 cannot carry, escaped or not: most C0 controls, lone surrogates, U+FFFE and U+FFFF. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
/** Twilio's limit on a `<Parameter>`: its name and value together under 500 characters. */
export const MAX_STREAM_PARAMETER_CHARS = 499;

/** `text` without the characters XML 1.0 cannot carry (a model's words, before they go into TwiML). */
export const xmlSafe = (text: string) => text.replace(new RegExp(NOT_XML.source, 'gu'), '');

/** Refuses a string XML 1.0 cannot carry (as the `twilio` package does), naming where. */
function assertXmlText(value: string): string {
  const found = NOT_XML.exec(value);
  if (found) throw new Error(`TwiML cannot carry the character at index ${found.index}`);
  return value;
}

/** An attribute value escaped as xmlbuilder (the `twilio` package's writer) escapes one. */
export function escapeXmlAttribute(value: string): string {
  return assertXmlText(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/"/g, '&quot;')
    .replace(/\t/g, '&#x9;')
    .replace(/\n/g, '&#xA;')
    .replace(/\r/g, '&#xD;');
}

/** Element text escaped as xmlbuilder escapes it. */
export function escapeXmlText(value: string): string {
  return assertXmlText(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r/g, '&#xD;');
}

/** A stream URL Twilio accepts: `wss://` (or `ws://`, which only a local double follows), no query string. */
function assertStreamUrl(url: string): string {
  if (!/^wss?:\/\/[^/?#]+/i.test(url)) throw new Error('The stream URL must be a wss:// (or ws://) URL');
  // Twilio: "The url does not support query string parameters"; a <Parameter> carries them
  if (/[?#]/.test(url)) throw new Error('The stream URL cannot have a query string: use a <Parameter>');
  return url;
}

/**
 * The answer that connects a call to a bidirectional media stream at `streamUrl`, with `parameters`
 * as `<Parameter>`s (Twilio hands them over in the `start` message's `customParameters`):
 * `<Response><Connect><Stream url="…"><Parameter name="…" value="…"/></Stream></Connect></Response>`.
 * Nothing follows `<Connect>`, so the call ends when the stream closes.
 */
export function connectStreamTwiml(
  streamUrl: string,
  parameters: Readonly<Record<string, string>> = {},
): string {
  const parameterElements = Object.entries(parameters).map(([name, value]) => {
    if (name.length + value.length > MAX_STREAM_PARAMETER_CHARS)
      throw new Error(`The <Parameter> ${name.slice(0, 40)} is over Twilio's 500 characters`);
    return `<Parameter name="${escapeXmlAttribute(name)}" value="${escapeXmlAttribute(value)}"/>`;
  });
  const url = escapeXmlAttribute(assertStreamUrl(streamUrl));
  const stream = parameterElements.length
    ? `<Stream url="${url}">${parameterElements.join('')}</Stream>`
    : `<Stream url="${url}"/>`;
  return `${XML_DECLARATION}<Response><Connect>${stream}</Connect></Response>`;
}

/** How `<Say>` speaks: a Twilio voice (`Polly.Joanna`, `alice`) and a language (`en-US`). */
export interface SayOptions {
  voice?: string;
  language?: string;
}

/** The answer that says `message` to the caller, then hangs up: a call refused politely. */
export function sayAndHangUpTwiml(message: string, options: SayOptions = {}): string {
  const attributes = [
    options.voice === undefined ? '' : ` voice="${escapeXmlAttribute(options.voice)}"`,
    options.language === undefined ? '' : ` language="${escapeXmlAttribute(options.language)}"`,
  ].join('');
  const say = message ? `<Say${attributes}>${escapeXmlText(message)}</Say>` : `<Say${attributes}/>`;
  return `${XML_DECLARATION}<Response>${say}<Hangup/></Response>`;
}

/** How long a warm transfer's destination rings before the caller comes back to the agent. */
export const WARM_TRANSFER_RING_S = 20;

/**
 * The answer that puts the caller through to `destination`: `<Dial>` with the number (`<Number>`)
 * or SIP address (`<Sip>`), shown to the callee as coming from `callerId`. The call leaves its
 * media stream: the agent is off the line. A warm transfer adds the whisper (the noun's `url`: TwiML
 * played to the callee on answer, before the caller is connected), the Dial's `action` (asked when
 * the dial ends, its answer followed next) and a ring timeout.
 */
export function dialTwiml(
  destination: string,
  options: { callerId: string; actionUrl?: string; whisperUrl?: string },
): string {
  const noun = /^sips?:/i.test(destination) ? 'Sip' : 'Number';
  const url = options.whisperUrl ? ` url="${escapeXmlAttribute(options.whisperUrl)}"` : '';
  const target = `<${noun}${url}>${escapeXmlText(destination)}</${noun}>`;
  const action = options.actionUrl
    ? ` action="${escapeXmlAttribute(options.actionUrl)}" timeout="${WARM_TRANSFER_RING_S}"`
    : '';
  return `${XML_DECLARATION}<Response><Dial callerId="${escapeXmlAttribute(options.callerId)}"${action}>${target}</Dial></Response>`;
}

/** The whisper a warm transfer's callee hears before the caller is put through: `<Say>` alone. */
export function whisperTwiml(summary: string): string {
  const say = summary ? `<Say>${escapeXmlText(summary)}</Say>` : '<Say/>';
  return `${XML_DECLARATION}<Response>${say}</Response>`;
}

/** Ends the call: after a warm transfer's bridged talk (its Dial's action answered this). */
export function hangUpTwiml(): string {
  return `${XML_DECLARATION}<Response><Hangup/></Response>`;
}
