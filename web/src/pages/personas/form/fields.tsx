import { Button, Group, Input, Pill, Slider, TagsInput, Text, Textarea, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useField } from './FormContext';
import { asNumber, asText, asTextList } from './manifestPaths';

const chars = (value: string) => [...value].length;

interface FieldProps {
  /** The manifest path, e.g. `identity.name`. */
  path: string;
  label: string;
  /** The field's rule, shown under its label. */
  rule: string;
  required?: boolean;
}

/** `rule · 12 / 80` when the field has a length limit. */
const withCount = (rule: string, value: string, max?: number) =>
  max === undefined ? rule : `${rule} · ${chars(value)} / ${max}`;

/** A one-line text field; emptied, it is removed from the draft. */
export function TextField(props: FieldProps & { max?: number; placeholder?: string }) {
  const field = useField(props.path);
  const value = asText(field.value);
  return (
    <TextInput
      id={field.id}
      label={props.label}
      withAsterisk={props.required}
      description={withCount(props.rule, value, props.max)}
      placeholder={props.placeholder}
      value={value}
      onChange={(e) => field.set(e.currentTarget.value === '' ? undefined : e.currentTarget.value)}
      onBlur={field.touch}
      error={field.error}
      disabled={field.disabled}
    />
  );
}

/** Long text with its character count against its limit. */
export function LongTextField(props: FieldProps & { max: number; minRows?: number }) {
  const field = useField(props.path);
  const value = asText(field.value);
  return (
    <Textarea
      id={field.id}
      label={props.label}
      withAsterisk={props.required}
      description={withCount(props.rule, value, props.max)}
      value={value}
      onChange={(e) => field.set(e.currentTarget.value === '' ? undefined : e.currentTarget.value)}
      onBlur={field.touch}
      error={field.error}
      disabled={field.disabled}
      autosize
      minRows={props.minRows ?? 3}
      maxRows={16}
    />
  );
}

/** A sentence's chip wraps its words instead of cutting them off. */
const wrappingPill = {
  root: { height: 'auto', maxWidth: '100%', whiteSpace: 'normal' },
  label: { lineHeight: 1.35, paddingBlock: 3, whiteSpace: 'normal' },
} as const;

/**
 * A list of strings as chips: Enter (or a comma, for short tags) adds one. Sentences (greetings)
 * are not split on commas.
 */
export function ChipsField(props: FieldProps & { maxItems: number; sentences?: boolean }) {
  const field = useField(props.path);
  return (
    <TagsInput
      id={field.id}
      label={props.label}
      withAsterisk={props.required}
      description={`${props.rule} · press Enter to add`}
      value={asTextList(field.value)}
      onChange={(items) => field.set(items)}
      onBlur={field.touch}
      splitChars={props.sentences ? [] : [',']}
      renderPill={
        props.sentences
          ? ({ value, onRemove, disabled }) => (
              <Pill
                withRemoveButton={!disabled}
                onRemove={onRemove}
                disabled={disabled}
                styles={wrappingPill}
              >
                {value}
              </Pill>
            )
          : undefined
      }
      maxTags={props.maxItems}
      error={field.error}
      disabled={field.disabled}
      clearable
    />
  );
}

/**
 * A number in a range as a slider, its value said beside it (and to screen readers). An unset value
 * is drawn unset: a bare track with no thumb and no filled bar, reading "not set"; clicking the track,
 * or focusing it (its thumb then shows, dashed) and pressing an arrow key, sets it. An optional one
 * can be unset again.
 */
export function RangeField(
  props: FieldProps & { min: number; max: number; step: number; unsetAt: number; unsetText?: string },
) {
  const field = useField(props.path);
  const [focused, setFocused] = useState(false);
  const value = asNumber(field.value);
  const unset = value === undefined;
  const shown = unset ? (props.unsetText ?? 'not set') : String(value);
  const errorId = `${field.id}-error`;
  const descriptionId = `${field.id}-description`;
  return (
    <Input.Wrapper
      id={field.id}
      labelElement="div"
      label={props.label}
      withAsterisk={props.required}
      description={props.rule}
      error={field.error}
    >
      <Group gap="sm" wrap="nowrap" mt={6}>
        <Slider
          style={{ flex: 1 }}
          min={props.min}
          max={props.max}
          step={props.step}
          precision={2}
          value={value ?? props.unsetAt}
          onChange={(next) => field.set(next)}
          disabled={field.disabled}
          thumbLabel={props.label}
          thumbValueText={() => shown}
          label={null}
          color={unset ? 'gray' : undefined}
          styles={unset ? { bar: { display: 'none' }, thumb: unsetThumb(focused) } : undefined}
          data-unset={unset || undefined}
          thumbProps={{
            'aria-describedby': field.error ? `${errorId} ${descriptionId}` : descriptionId,
            'aria-invalid': field.error ? true : undefined,
            onFocus: () => setFocused(true),
            onBlur: () => {
              setFocused(false);
              field.touch();
            },
          }}
        />
        <Text size="sm" w={64} ta="right" aria-hidden data-testid={`value-${props.path}`}>
          {shown}
        </Text>
        {!props.required && value !== undefined && !field.disabled ? (
          <Button size="compact-xs" variant="subtle" onClick={() => field.set(undefined)}>
            Unset {props.label.toLowerCase()}
          </Button>
        ) : null}
      </Group>
    </Input.Wrapper>
  );
}

/** An unset slider's thumb: not drawn, except as a dashed ring while it has the keyboard's focus. */
const unsetThumb = (focused: boolean) =>
  ({
    opacity: focused ? 1 : 0,
    borderStyle: 'dashed',
    backgroundColor: 'var(--mantine-color-white)',
  }) as const;
