import { Anchor, Button } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { environmentStore } from '../api/client';
import { personasQuery, phoneNumbersQuery } from '../api/queries';
import { DataTable } from '../components/DataTable';
import { ListPage } from '../components/ListPage';
import { useStoredValue } from '../store';
import { AddPhoneNumberDialog } from './phone/AddPhoneNumberDialog';
import { CarrierSetup } from './phone/CarrierSetup';
import { DeletePhoneNumberDialog } from './phone/DeletePhoneNumberDialog';
import { type PhoneNumber, phoneNumberColumns } from './phone/phone-number-columns';

/**
 * The environment's phone numbers (Twilio or Telnyx) and the persona each one puts on the line: add
 * one (its credentials are never shown again), see what to paste where in its carrier's console
 * (its inbound URL, with a copy button), delete it.
 */
export default function PhoneNumbersPage() {
  const environment = useStoredValue(environmentStore);
  const queryClient = useQueryClient();
  const numbers = useQuery(phoneNumbersQuery(environment));
  const personas = useQuery(personasQuery());
  const [adding, setAdding] = useState(false);
  const [openId, setOpenId] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<PhoneNumber | null>(null);
  const columns = useMemo(() => {
    const names = new Map((personas.data ?? []).map((p) => [p.id, p.name || p.id]));
    return phoneNumberColumns({
      personaName: (id) => names.get(id) ?? id,
      openId,
      onSetup: setOpenId,
      onDelete: setDeleting,
    });
  }, [personas.data, openId]);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['phone-numbers'] });
  return (
    <>
      <ListPage
        title="Phone numbers"
        description={
          <>
            Carrier numbers your personas answer and call from ({environment} environment). Their calls are on
            the{' '}
            <Anchor component={Link} to="/calls" underline="always">
              Calls
            </Anchor>{' '}
            page.
          </>
        }
        actions={<Button onClick={() => setAdding(true)}>Add number</Button>}
        items={numbers.data}
        pending={numbers.isPending}
        error={numbers.error}
        empty={<>No phone numbers in the {environment} environment.</>}
        emptyAction={
          <Button variant="default" onClick={() => setAdding(true)}>
            Add your first number
          </Button>
        }
      >
        {(rows) => (
          <DataTable
            label="Phone numbers"
            minWidth={960}
            striped
            rows={rows}
            columns={columns}
            rowKey={(n) => n.id}
            rowProps={(n) => ({ 'data-testid': `phone-number-${n.number}` })}
            details={(n) =>
              n.id === openId ? { id: `setup-${n.id}`, content: <CarrierSetup number={n} /> } : null
            }
          />
        )}
      </ListPage>
      <AddPhoneNumberDialog
        opened={adding}
        onClose={() => setAdding(false)}
        onAdded={(number) => {
          setAdding(false);
          setOpenId(number.id);
          refresh();
        }}
      />
      <DeletePhoneNumberDialog
        number={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={() => {
          setDeleting(null);
          refresh();
        }}
      />
    </>
  );
}
