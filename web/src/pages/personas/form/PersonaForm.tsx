import { Alert, Stack } from '@mantine/core';
import { ConversationSection } from './ConversationSection';
import { PersonaFormContext, type PersonaFormState } from './FormContext';
import { BehaviorsSection, IdentitySection, KnowledgeSection, PersonalitySection } from './sections';
import { TelephonySection } from './TelephonySection';
import { ToolsSection } from './ToolsSection';
import { VoicePicker } from './VoicePicker';

/**
 * The manifest as a form, grouped as the manifest is, each field with its rule under its label and
 * the API's problems with it (validation or a refused save) on it. The same draft as the JSON tab.
 */
export function PersonaForm(
  props: PersonaFormState & { readOnlyReason: string | null; jsonBroken: boolean },
) {
  const disabled = props.disabled || props.jsonBroken;
  return (
    <PersonaFormContext.Provider value={{ ...props, disabled }}>
      <Stack gap="md" data-testid="persona-form">
        {props.readOnlyReason ? (
          <Alert color="gray" title="Read only">
            {props.readOnlyReason}
          </Alert>
        ) : null}
        {props.jsonBroken ? (
          <Alert color="red" title="The JSON does not parse">
            The JSON tab holds text that is not a manifest: fix it there (or discard your changes) to edit
            here.
          </Alert>
        ) : null}
        <IdentitySection />
        <VoicePicker />
        <PersonalitySection />
        <KnowledgeSection />
        <BehaviorsSection />
        <ConversationSection />
        <ToolsSection />
        <TelephonySection />
      </Stack>
    </PersonaFormContext.Provider>
  );
}
