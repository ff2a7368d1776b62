import { Anchor, Button, Modal, Select, Stack, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { KNOWLEDGE_LANGUAGES, type KnowledgeLanguage } from '../../../src/knowledge/languages';
import { api, environmentStore, unwrap } from '../api/client';
import { DataTable } from '../components/DataTable';
import { ListPage } from '../components/ListPage';
import { ErrorAlert, formatTime } from '../components/ui';
import { useStoredValue } from '../store';

/** A new knowledge base: its name and the language its documents are searched in. */
function NewBaseDialog(props: { opened: boolean; onClose(): void; onCreated(id: string): void }) {
  const [name, setName] = useState('');
  const [language, setLanguage] = useState<KnowledgeLanguage>('english');
  const create = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v2/developers/knowledge-bases', { body: { name, language } })).data,
    onSuccess: (base) => props.onCreated(base.id),
  });
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="New knowledge base">
      <Stack gap="sm">
        <TextInput
          label="Name"
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          maxLength={200}
        />
        <Select
          label="Language"
          description="How its documents are searched (stemming, stop words); simple: exact words"
          data={[...KNOWLEDGE_LANGUAGES]}
          value={language}
          onChange={(next) => setLanguage((next ?? 'english') as KnowledgeLanguage)}
          allowDeselect={false}
        />
        {create.error && <ErrorAlert error={create.error} title="The knowledge base was not created" />}
        <Button onClick={() => create.mutate()} loading={create.isPending} disabled={!name.trim()}>
          Create
        </Button>
      </Stack>
    </Modal>
  );
}

/** The knowledge bases of the selected environment: documents the agents answer from. */
export default function KnowledgePage() {
  const environment = useStoredValue(environmentStore);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const bases = useQuery({
    queryKey: ['knowledge-bases', environment],
    queryFn: async () =>
      unwrap(await api.GET('/api/v2/developers/knowledge-bases', { params: { query: { limit: 200 } } })),
  });
  return (
    <>
      <ListPage
        title="Knowledge"
        description={`Documents your agents answer from (${environment} environment): files, web pages and text, indexed and searched each turn.`}
        toolbar={<Button onClick={() => setCreating(true)}>New knowledge base</Button>}
        items={bases.data?.data}
        pending={bases.isPending}
        error={bases.error}
        empty="No knowledge bases yet."
      >
        {(rows) => (
          <DataTable
            label="Knowledge bases"
            minWidth={600}
            striped
            highlightOnHover
            rows={rows}
            rowKey={(b) => b.id}
            columns={[
              {
                header: 'Knowledge base',
                cell: (b) => (
                  <Anchor component={Link} to={`/knowledge/${b.id}`}>
                    {b.name}
                  </Anchor>
                ),
              },
              { header: 'Language', cell: (b) => b.language },
              { header: 'Created', cell: (b) => formatTime(b.createdAt) },
            ]}
          />
        )}
      </ListPage>
      <NewBaseDialog
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(id) => {
          void queryClient.invalidateQueries({ queryKey: ['knowledge-bases'] });
          navigate(`/knowledge/${id}`);
        }}
      />
    </>
  );
}
