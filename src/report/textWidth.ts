/**
 * Text width for chart layout without a canvas. Vega's own fallback guesses 0.8 em per character,
 * which truncates axis labels at half their room and pads charts with blank space; this uses
 * Helvetica's advance widths (the charts' first font, Arial has the same metrics), which is what
 * vl-convert does too through Vega's documented `textMetrics.width` hook.
 */

/** Helvetica advance widths in 1/1000 em, for the printable ASCII characters 32..126. */
const HELVETICA = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278,
  278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722,
  667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556,
  556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];

/** Width in pixels of `text` at `fontSizePx`; bold text is about 8% wider. */
export function estimateTextWidth(text: string, fontSizePx: number, bold = false): number {
  let units = 0;
  for (const character of text) {
    const code = character.codePointAt(0)!;
    units += code >= 32 && code <= 126 ? HELVETICA[code - 32]! : 600;
  }
  return (units / 1000) * fontSizePx * (bold ? 1.08 : 1);
}

interface TextItem {
  readonly fontSize?: number | string;
  readonly fontWeight?: number | string;
}

/** The `(item, text) => width` function Vega's `textMetrics.width` expects. */
export function vegaTextWidth(item: TextItem, text: unknown): number {
  const fontSize = item.fontSize != null ? Number(item.fontSize) || 0 : 11;
  const weight = item.fontWeight;
  const bold = weight === 'bold' || (typeof weight === 'number' && weight >= 600) || (typeof weight === 'string' && Number(weight) >= 600);
  return estimateTextWidth(text == null ? '' : String(text).trim(), fontSize, bold);
}
