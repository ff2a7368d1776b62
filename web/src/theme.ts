import {
  createTheme,
  darken,
  defaultVariantColorsResolver,
  luminance,
  Modal,
  parseThemeColor,
  type VariantColorsResolver,
} from '@mantine/core';

/** Contrast of a colour against white (WCAG relative luminance). */
const contrastWithWhite = (color: string) => 1.05 / (luminance(color) + 0.05);

/** The colour darkened just enough to read on white and on its own light tint (≥ 6.5:1 on white). */
export function readable(color: string): string {
  let value = color;
  for (let step = 0; step < 20 && contrastWithWhite(value) < 6.5; step++) value = darken(value, 0.06);
  return value;
}

/**
 * Mantine's light, outline, subtle and transparent variants draw text in the colour's middle shade,
 * which is below WCAG AA (4.5:1) for green, orange, yellow and red on white and on their light
 * backgrounds; this keeps Mantine's colours but darkens that text until it passes.
 */
const variantColorResolver: VariantColorsResolver = (input) => {
  const base = defaultVariantColorsResolver(input);
  if (!['light', 'outline', 'subtle', 'transparent'].includes(input.variant)) return base;
  const parsed = parseThemeColor({ color: input.color ?? input.theme.primaryColor, theme: input.theme });
  const source =
    parsed.isThemeColor && parsed.shade === undefined ? input.theme.colors[parsed.color][9] : parsed.value;
  const text = readable(source);
  return {
    ...base,
    color: text,
    hoverColor: text,
    ...(input.variant === 'outline' ? { border: `1px solid ${text}` } : {}),
  };
};

/** Shades chosen for WCAG AA contrast (4.5:1) of text on white and of white on filled controls. */
export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: 8,
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  defaultRadius: 'md',
  variantColorResolver,
  components: {
    // the close button of every dialog, named for screen readers
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close dialog' } } }),
  },
});
