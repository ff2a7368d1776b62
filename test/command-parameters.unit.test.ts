import { RE2JS } from 're2js';
import { commandScore } from '../src/voice-workflows/matching';
import { fillFromAnswer, fillParameters } from '../src/voice-workflows/parameter-filling';
import { CreateWorkflowBody } from '../src/voice-workflows/workflows.schemas';

const parameter = (p: { name: string } & Record<string, unknown>) =>
  ({ type: 'string', required: true, ...p }) as never;

describe('voice command parameters', () => {
  it('placeholders are not words to match, and the words said in their place do not lower the score', () => {
    expect(commandScore('Has my order A-1002 shipped?', 'has my order {orderId} shipped')).toBe(1);
    expect(commandScore('Has my order shipped?', 'has my order {orderId} shipped')).toBe(1);
    // a command without placeholders scores as before
    expect(commandScore('Has my order A-1002 shipped?', 'has my order shipped')).toBeLessThan(1);
  });

  it('fills by the words in the placeholder, by pattern (on RE2) and by type', () => {
    const re2 = jest.spyOn(RE2JS.prototype, 'matcher');
    const byPattern = parameter({ name: 'orderId', pattern: 'A-?\\d{4}' });
    expect(fillParameters('track parcel', [byPattern], 'track parcel a-1002 please').values).toEqual({
      orderId: 'a-1002',
    });
    expect(re2).toHaveBeenCalled();
    const guests = parameter({ name: 'guests', type: 'integer' });
    expect(fillParameters('table for {guests}', [guests], 'a table for four, please').values).toEqual({
      guests: 4,
    });
    const size = parameter({ name: 'size', type: ['small', 'large'] });
    expect(fillParameters('order a coffee', [size], 'order a large coffee').values).toEqual({
      size: 'large',
    });
    const orderId = parameter({ name: 'orderId' });
    expect(
      fillParameters('where is my order {orderId}', [orderId], "Where's my order B-7, please?").values,
    ).toEqual({
      orderId: 'B-7',
    });
    expect(fillParameters('where is my order {orderId}', [orderId], 'where is my order').missing).toEqual([
      orderId,
    ]);
    expect(fillFromAnswer([orderId], "It's B-7.").values).toEqual({ orderId: 'B-7' });
  });

  it('refuses unknown placeholders, bad or unsafe patterns and duplicate names, naming the field', () => {
    const parsed = CreateWorkflowBody.safeParse({
      name: 'x',
      trigger: {
        type: 'voice_command',
        config: {
          command: 'move {orderId} to {city} {bad name}',
          parameters: [{ name: 'orderId', pattern: '(a+' }, { name: 'orderId' }, { name: 'note' }],
        },
      },
      nodes: [],
      edges: [],
    });
    const issues = parsed.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(issues).toEqual(
      expect.arrayContaining([
        'trigger.config.command: {city} is not one of the parameters',
        expect.stringMatching(/^trigger\.config\.command: \{bad name\} is not a placeholder/),
        expect.stringMatching(/^trigger\.config\.parameters\.0\.pattern: not a valid regular expression/),
        'trigger.config.parameters.1.name: duplicate parameter name "orderId"',
        expect.stringMatching(/^trigger\.config\.parameters\.2: "note" cannot be found/),
      ]),
    );
  });
});
