/** A TwiML verb the double follows; any other verb is skipped. */
export type TwimlVerb =
  | { verb: 'Say'; text: string }
  | { verb: 'Hangup' }
  | { verb: 'Connect.Stream'; url: string; parameters: Record<string, string> }
  /**
   * `<Dial callerId action timeout>` with a `<Number url>` or a `<Sip url>`: the caller put through
   * to `destination`; `url` the whisper, `action` asked when the dial ends.
   */
  | {
      verb: 'Dial';
      destination: string;
      callerId?: string;
      action?: string;
      timeoutS?: number;
      url?: string;
    };

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML text or an attribute value with its entities and character references resolved. */
function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] !== '#') return ENTITIES[name] ?? whole;
    const code =
      name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return String.fromCodePoint(code);
  });
}

function attributesOf(source: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [, name, value] of source.matchAll(/([\w:.-]+)\s*=\s*"([^"]*)"/g))
    attributes[name!] = unescapeXml(value!);
  return attributes;
}

/**
 * The verbs of a TwiML document the double acts on, in order: `<Say>` (its text), `<Hangup/>`,
 * `<Connect><Stream url>` with its `<Parameter>`s and `<Dial>` to a `<Number>` or `<Sip>`. Enough of XML for what a TwiML writer produces
 * (elements, attributes in double quotes, entities); it throws on a document without `<Response>`.
 */
export function readTwiml(document: string): TwimlVerb[] {
  if (!/<Response[\s/>]/.test(document)) throw new Error(`not a TwiML document: ${document.slice(0, 80)}`);
  const verbs: TwimlVerb[] = [];
  const open: string[] = [];
  let stream: Extract<TwimlVerb, { verb: 'Connect.Stream' }> | undefined;
  let say: { verb: 'Say'; text: string } | undefined;
  let dial: Extract<TwimlVerb, { verb: 'Dial' }> | undefined;
  /** The `<Number>` or `<Sip>` whose text is being read. */
  let target = false;
  const body = document.replace(/^\s*<\?xml[^?]*\?>/, '');
  for (const [, closing, name, attributeSource, selfClosing, text] of body.matchAll(
    /<(\/?)([A-Za-z]+)((?:\s+[\w:.-]+\s*=\s*"[^"]*")*)\s*(\/?)>|([^<]+)/g,
  )) {
    if (text !== undefined) {
      if (say) say.text += unescapeXml(text);
      if (dial && target) dial.destination += unescapeXml(text).trim();
      continue;
    }
    if (closing) {
      open.pop();
      if (name === 'Number' || name === 'Sip') target = false;
      if (name === 'Dial' && dial) verbs.push(dial);
      if (name === 'Dial') dial = undefined;
      if (name === 'Stream' && stream) verbs.push(stream);
      if (name === 'Stream') stream = undefined;
      if (name === 'Say' && say) verbs.push(say);
      if (name === 'Say') say = undefined;
      continue;
    }
    const attributes = attributesOf(attributeSource ?? '');
    const parent = open.at(-1);
    if (name === 'Stream' && parent === 'Connect')
      stream = { verb: 'Connect.Stream', url: attributes.url ?? '', parameters: {} };
    if (name === 'Parameter' && stream && attributes.name !== undefined)
      stream.parameters[attributes.name] = attributes.value ?? '';
    if (name === 'Say') say = { verb: 'Say', text: '' };
    if (name === 'Dial')
      dial = {
        verb: 'Dial',
        destination: '',
        callerId: attributes.callerId,
        ...(attributes.action ? { action: attributes.action } : {}),
        ...(attributes.timeout ? { timeoutS: Number(attributes.timeout) } : {}),
      };
    if ((name === 'Number' || name === 'Sip') && parent === 'Dial' && dial) {
      target = true;
      if (attributes.url) dial.url = attributes.url;
    }
    if (name === 'Hangup') verbs.push({ verb: 'Hangup' });
    if (!selfClosing) open.push(name!);
    else if (name === 'Stream' && stream) {
      verbs.push(stream);
      stream = undefined;
    } else if (name === 'Say' && say) {
      verbs.push(say);
      say = undefined;
    }
  }
  return verbs;
}
