import { describe, expect, it } from 'vitest';
import { inItemOrder, mapInItemOrder } from '../../../suites/schedule.js';

/** A promise and its resolver: the test decides which item ends first, without a timer. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('calls made by concurrent items take effect in item order (suites/schedule.ts)', () => {
  it('item 1 ending first: its call waits for item 0', async () => {
    const seen: string[] = [];
    const note = inItemOrder((what: string) => seen.push(what));
    const gates = [gate(), gate()];
    const done = mapInItemOrder([0, 1], 2, async (i) => {
      await gates[i]!.wait;
      note(`item ${i}`);
    });
    gates[1]!.open();
    await Promise.resolve();
    gates[0]!.open();
    await done;
    expect(seen).toEqual(['item 0', 'item 1']);
  });

  it('a call made by work an item left running, after the item settled, still takes effect', async () => {
    const seen: string[] = [];
    const note = inItemOrder((what: string) => seen.push(what));
    const late = gate();
    let leftRunning: Promise<void> | undefined;
    await mapInItemOrder([0], 1, async () => {
      leftRunning = late.wait.then(() => note('after the item'));
    });
    late.open();
    await leftRunning;
    expect(seen).toEqual(['after the item']);
  });

  it('nested: a late call of an inner item goes to the enclosing item, kept in its order', async () => {
    const seen: string[] = [];
    const note = inItemOrder((what: string) => seen.push(what));
    const late = gate();
    const outerGates = [gate(), gate()];
    let leftRunning: Promise<void> | undefined;
    const done = mapInItemOrder([0, 1], 2, async (i) => {
      if (i === 1) {
        await mapInItemOrder([0], 1, async () => {
          leftRunning = late.wait.then(() => note('inner, late'));
        });
        late.open();
        await leftRunning;
        note('outer 1');
      }
      await outerGates[i]!.wait;
      if (i === 0) note('outer 0');
    });
    outerGates[1]!.open();
    await leftRunning;
    outerGates[0]!.open();
    await done;
    expect(seen).toEqual(['outer 0', 'inner, late', 'outer 1']);
  });
});
