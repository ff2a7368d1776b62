import { api, unwrap } from '../../api/client';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import type { PhoneNumber } from './phone-number-columns';

/** "Delete this number?" (`DELETE /phone-numbers/:id`): the carrier keeps it; open while `number` is set. */
export function DeletePhoneNumberDialog(props: {
  number: PhoneNumber | null;
  onClose(): void;
  onDeleted(): void;
}) {
  return (
    <ConfirmDialog
      opened={props.number !== null}
      title="Delete this number?"
      confirmLabel="Delete number"
      action={async () =>
        unwrap(
          await api.DELETE('/api/v2/developers/phone-numbers/{id}', {
            params: { path: { id: props.number?.id ?? '' } },
          }),
        )
      }
      onClose={props.onClose}
      onDone={props.onDeleted}
    >
      {props.number?.number} stops answering here: the carrier keeps the number, and its console still points
      at the inbound URL until you change it. Its past calls stay listed.
    </ConfirmDialog>
  );
}
