/**
 * The default theme, plus click-to-enlarge for the report's charts on the results page: the
 * report's charts are drawn for the content column and shown at their own size; a click shows
 * one enlarged over the page (a click, Escape or the close button closes it). Without
 * JavaScript the chart's link opens the SVG itself in a new tab.
 */
import DefaultTheme from 'vitepress/theme';
import type { Theme } from 'vitepress';
import './custom.css';

/** Up to twice its own size, never wider than the window. */
const MAX_ZOOM = 2;

function openChart(link: HTMLAnchorElement): void {
  const source = link.querySelector('img');
  if (!source) return;
  const dialog = document.createElement('dialog');
  dialog.className = 'chart-zoom';
  dialog.setAttribute('aria-label', source.alt || 'chart');
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'chart-zoom-close';
  close.setAttribute('aria-label', 'Close');
  close.textContent = '×';
  const image = document.createElement('img');
  image.src = source.currentSrc || source.src;
  image.alt = source.alt;
  const naturalWidth = source.naturalWidth || source.width;
  image.style.width = `${Math.round(Math.min(window.innerWidth * 0.94 - 32, naturalWidth * MAX_ZOOM))}px`;
  dialog.append(close, image);
  dialog.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}

export default {
  extends: DefaultTheme,
  enhanceApp() {
    if (typeof window === 'undefined') return; // server-side rendering at build time
    window.addEventListener('click', (event) => {
      if (event.defaultPrevented || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
      const link = event.target instanceof Element ? event.target.closest('a.report-chart') : null;
      if (!(link instanceof HTMLAnchorElement)) return;
      event.preventDefault();
      openChart(link);
    });
  },
} satisfies Theme;
