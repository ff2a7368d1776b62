import { Code, NativeSelect, Text, Textarea, TextInput } from '@mantine/core';

type Config = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** An optional text field: removed from the config when emptied. */
function withOptionalText(config: Config, key: string, value: string): Config {
  const next = { ...config };
  if (value) next[key] = value;
  else delete next[key];
  return next;
}

const ON_A_CALL = (
  <>
    Acts on the phone call once the run is over and its speech was said. With no phone call to act on (a REST
    turn, a run by id) the node fails the run; a dry run shows what it would ask.
  </>
);

/**
 * The config form of a call node (`press_digits`, `transfer_call`, `end_call`): what it asks of the
 * call (docs/telephony.md "Call nodes in voice workflows"). Null for any other node type.
 */
export function CallNodeFields({
  type,
  config,
  onChange,
}: {
  type: string;
  config: Config;
  onChange(c: Config): void;
}) {
  switch (type) {
    case 'press_digits':
      return (
        <>
          <TextInput
            label="Keys"
            description={
              <>
                1 to 32 of 0-9, *, # and A-D, played as tones, or a template such as{' '}
                <Code>{'{{trigger.digits}}'}</Code>
              </>
            }
            ff="monospace"
            maxLength={200}
            value={str(config.digits)}
            onChange={(e) => onChange({ ...config, digits: e.currentTarget.value })}
          />
          <Text size="xs">{ON_A_CALL}</Text>
        </>
      );
    case 'transfer_call':
      return (
        <>
          <TextInput
            label="Destination"
            description="A number (+14155550100), a SIP URI or a persona id; the persona must list it in its transfer destinations"
            maxLength={300}
            value={str(config.destination)}
            onChange={(e) => onChange({ ...config, destination: e.currentTarget.value })}
          />
          <NativeSelect
            label="Mode"
            value={str(config.mode) || 'cold'}
            onChange={(e) => onChange({ ...config, mode: e.currentTarget.value })}
            data={[
              { value: 'cold', label: 'Cold: put the caller through at once' },
              { value: 'warm', label: 'Warm: the person answering hears a summary first' },
            ]}
          />
          <Textarea
            label="Summary"
            description="For a warm transfer: what the person answering should know (templated)"
            autosize
            minRows={2}
            maxLength={1000}
            value={str(config.summary)}
            onChange={(e) => onChange(withOptionalText(config, 'summary', e.currentTarget.value))}
          />
          <Text size="xs">{ON_A_CALL}</Text>
        </>
      );
    case 'end_call':
      return (
        <>
          <TextInput
            label="Closing line"
            description="Said before the call hangs up (templated); empty: the persona's closing line when nothing else was said"
            maxLength={500}
            value={str(config.closingLine)}
            onChange={(e) => onChange(withOptionalText(config, 'closingLine', e.currentTarget.value))}
          />
          <Text size="xs">{ON_A_CALL}</Text>
        </>
      );
    default:
      return null;
  }
}
