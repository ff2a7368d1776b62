import { Anchor, Button, Code, Group } from '@mantine/core';
import { Link } from 'react-router';
import type { components } from '../../api/schema';
import type { Column } from '../../components/DataTable';
import { formatTime } from '../../components/ui';

export type PhoneNumber = components['schemas']['PhoneNumber'];

export const CARRIER_NAMES: Record<PhoneNumber['provider'], string> = { twilio: 'Twilio', telnyx: 'Telnyx' };

/** The numbers table's columns: the number, its carrier and persona, its inbound URL, and its buttons. */
export function phoneNumberColumns(opts: {
  personaName(id: string): string;
  openId: string | null;
  onSetup(id: string | null): void;
  onDelete(number: PhoneNumber): void;
}): Column<PhoneNumber>[] {
  return [
    { header: 'Number', cell: (n) => <Code>{n.number}</Code> },
    { header: 'Name', cell: (n) => n.name ?? '—' },
    { header: 'Carrier', cell: (n) => CARRIER_NAMES[n.provider] },
    {
      header: 'Persona',
      cell: (n) =>
        n.personaId ? (
          <Anchor component={Link} to={`/personas/${n.personaId}`}>
            {opts.personaName(n.personaId)}
          </Anchor>
        ) : (
          'none: answers no call'
        ),
    },
    { header: 'Inbound URL', cell: (n) => <Code>{n.inboundUrl}</Code>, style: { wordBreak: 'break-all' } },
    { header: 'Added', cell: (n) => formatTime(n.createdAt) },
    {
      header: 'Actions',
      cell: (n) => (
        <Group gap={4} wrap="nowrap">
          <Button
            size="compact-xs"
            variant="default"
            aria-expanded={opts.openId === n.id}
            aria-controls={`setup-${n.id}`}
            onClick={() => opts.onSetup(opts.openId === n.id ? null : n.id)}
          >
            {opts.openId === n.id ? 'Hide setup' : 'Carrier setup'}
          </Button>
          <Button size="compact-xs" variant="subtle" color="red.8" onClick={() => opts.onDelete(n)}>
            Delete
          </Button>
        </Group>
      ),
    },
  ];
}
