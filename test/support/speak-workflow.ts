/** The body of POST /workflows for the smallest voice workflow: start, one `speak` step, end. */
export function speakWorkflow(name: string, text: string) {
  return {
    name,
    trigger: { type: 'manual', config: {} },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'say', type: 'speak', config: { text } },
      { id: 'end', type: 'end' },
    ],
    edges: [
      { sourceId: 'start', targetId: 'say' },
      { sourceId: 'say', targetId: 'end' },
    ],
  };
}
