/** How the slicer toxic cuts a chunk (pure; its delivery over sockets is in toxics.int.test.ts). */
import { sliceOffsets } from '../../src/proxy/toxics/slicer';

describe('slicer', () => {
  it('cuts a chunk into pieces around the average size that cover it exactly', () => {
    let seed = 1;
    const random = (): number => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const cuts = sliceOffsets(1000, 100, 20, random);
    expect(cuts[0]).toBe(0);
    expect(cuts[cuts.length - 1]).toBe(1000);
    const sizes = cuts.slice(1).map((cut, index) => cut - cuts[index]!);
    expect(Math.min(...sizes)).toBeGreaterThan(0);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(120);
    expect(sliceOffsets(5, 0, 0, random)).toEqual([0, 1, 2, 3, 4, 5]); // degenerate values still end
    expect(sliceOffsets(0, 10, 0, random)).toEqual([0]);
  }, 5_000);
});
