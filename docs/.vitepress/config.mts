import { defineConfig } from 'vitepress';

const guide = [
  { text: 'Getting started', link: '/guide/getting-started' },
  { text: 'Writing a benchmark', link: '/guide/writing-benchmarks' },
  { text: 'The client adapter', link: '/guide/client-adapter' },
  { text: 'Use it in your project', link: '/guide/in-your-project' },
  { text: 'Clients side by side', link: '/guide/clients' },
  { text: 'Load: rates and faults', link: '/guide/load' },
  { text: 'A fleet of agents', link: '/guide/fleet' },
  { text: 'Methodology', link: '/guide/methodology' },
  { text: 'CI', link: '/guide/ci' },
  { text: 'Cluster failover', link: '/guide/cluster' },
  { text: 'Sharded runs', link: '/guide/sharding' },
  { text: 'Troubleshooting', link: '/guide/troubleshooting' },
];

const reference = [
  { text: 'Result and history formats', link: '/reference/formats' },
  { text: 'The report and comparison', link: '/reference/report' },
  { text: 'The fault proxy', link: '/reference/fault-proxy' },
];

export default defineConfig({
  title: 'amqp-bench',
  description: 'Benchmarks and recovery latency for AMQP client libraries: Jest, a real RabbitMQ, Toxiproxy-compatible fault injection.',
  lang: 'en-GB',
  // Every page is written to <page>.html and every link points at that file, so the built site
  // works from any static file server and the link check can resolve links to files.
  cleanUrls: false,
  lastUpdated: false,
  // Fragments included into pages (schemas, the latest report), and this folder's own notes.
  srcExclude: ['**/_generated/**', 'README.md'],
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'Reference', link: '/reference/formats' },
      { text: 'Latest results', link: '/results/' },
      { text: 'Contributing', link: '/contributing' },
    ],
    sidebar: [
      { text: 'Guide', items: guide },
      { text: 'Reference', items: reference },
      { text: 'Results', items: [{ text: 'Latest results', link: '/results/' }] },
      { text: 'Project', items: [{ text: 'Contributing', link: '/contributing' }] },
    ],
    outline: { level: [2, 3] },
    search: { provider: 'local' },
    footer: { message: 'amqp-bench: MIT licence.' },
  },
});
