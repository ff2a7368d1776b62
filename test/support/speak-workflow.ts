/** The smallest voice workflow's graph: start, one `speak` step, end. */
export function speakGraph(text: string) {
  return {
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

/** The body of POST /workflows for that workflow, started by hand. */
export function speakWorkflow(name: string, text: string) {
  return { name, trigger: { type: 'manual', config: {} }, ...speakGraph(text) };
}
