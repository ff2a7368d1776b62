import { placeProblems } from '../web/src/pages/personas/form/fieldErrors';

/** The persona form places the API's problems on the fields they concern (a refused save, validation). */
describe('the persona form’s problems, by field', () => {
  it('puts a list item’s problem on its list, and a tool entry’s (its allow-list’s too) on the tools field', () => {
    const placed = placeProblems([
      'manifest.behaviors.greetings[1]: must be at most 200 characters',
      'manifest.tools[3]: names tool_x again (as tools[2] does)',
      'manifest.tools[0].tools: orders lists no tool "nope"',
      'manifest.voice.provider: must be "espeak-ng", the provider of voice "espeak-en-us-aria"',
      'manifest.tools.1.type: Invalid input',
      'something else entirely',
    ]);
    expect(Object.fromEntries(placed.byField)).toEqual({
      'behaviors.greetings': ['item 2: must be at most 200 characters'],
      tools: ['item 4: names tool_x again (as tools[2] does)', 'item 1: orders lists no tool "nope"'],
      'voice.voice_id': ['provider must be "espeak-ng", the provider of voice "espeak-en-us-aria"'],
    });
    expect(placed.unplaced).toEqual(['manifest.tools.1.type: Invalid input', 'something else entirely']);
  });

  it('puts a transfer destination’s problem on its own input, and the keypad’s on its fields', () => {
    const placed = placeProblems([
      'manifest.telephony.transferDestinations.1.destination: must be a number in E.164 form (+14155550100)',
      'manifest.telephony.keypad.timeoutMs: Too big: expected number to be <=10000',
      'manifest.telephony.transferDestinations: Too big: expected array to have <=20 items',
    ]);
    expect(Object.fromEntries(placed.byField)).toEqual({
      'telephony.transferDestinations.1.destination': ['must be a number in E.164 form (+14155550100)'],
      'telephony.keypad.timeoutMs': ['Too big: expected number to be <=10000'],
      'telephony.transferDestinations': ['Too big: expected array to have <=20 items'],
    });
    expect(placed.unplaced).toEqual([]);
  });
});
