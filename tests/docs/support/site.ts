/** Reading a built docs site: its source and built pages, and the internal links that point at nothing. */
import fs from 'node:fs';
import path from 'node:path';

/** Markdown pages of a docs folder, relative to it (generated fragments and dependencies left out). */
export function sourcePages(docsDir: string): string[] {
  const pages: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', '.vitepress', '_generated', 'public', 'scripts'].includes(entry.name)) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.md') && full !== path.join(docsDir, 'README.md')) pages.push(path.relative(docsDir, full));
    }
  };
  walk(docsDir);
  return pages.sort();
}

export const htmlFor = (page: string): string => page.replace(/\.md$/, '.html');

export function builtPages(dist: string): string[] {
  const pages: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'assets') walk(full);
      } else if (entry.name.endsWith('.html')) pages.push(path.relative(dist, full));
    }
  };
  walk(dist);
  return pages.sort();
}

export interface BrokenLink {
  readonly page: string;
  readonly link: string;
  readonly problem: string;
}

const ids = new Map<string, Set<string>>();
function idsOf(file: string): Set<string> {
  let found = ids.get(file);
  if (!found) {
    found = new Set([...fs.readFileSync(file, 'utf8').matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]!));
    ids.set(file, found);
  }
  return found;
}

/**
 * Every `href` and `src` of every built page that stays on the site must name a file that
 * was built (a page, an asset, a chart, a schema), and a `#fragment` an element on that page.
 */
export function brokenLinks(dist: string): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const page of builtPages(dist)) {
    const html = fs.readFileSync(path.join(dist, page), 'utf8');
    const pageUrl = new URL(`http://site.invalid/${page}`);
    for (const [, attribute, raw] of html.matchAll(/\s(href|src)="([^"]*)"/g)) {
      const link = raw!.replaceAll('&amp;', '&');
      if (/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(link) || link === '') continue; // external, mailto:, data:
      const url = new URL(link, pageUrl);
      if (url.host !== 'site.invalid') continue;
      let target = decodeURIComponent(url.pathname).replace(/^\//, '');
      if (target === '' || target.endsWith('/')) target += 'index.html';
      const file = path.join(dist, target);
      if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
        broken.push({ page, link, problem: `${attribute} points at ${target}, which was not built` });
        continue;
      }
      const fragment = decodeURIComponent(url.hash.slice(1));
      if (fragment !== '' && file.endsWith('.html') && !idsOf(file).has(fragment)) {
        broken.push({ page, link, problem: `no element with id "${fragment}" on ${target}` });
      }
    }
  }
  return broken;
}
