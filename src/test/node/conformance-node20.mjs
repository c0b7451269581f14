// Loaded with `node --import ./conformance-node20.mjs` before the MCP conformance suite's CLI
// (@modelcontextprotocol/conformance), as OAuthConformanceTest runs it. The CLI imports fs.globSync at its top, which
// Node.js has only from 22 on (this machine, CI's included, has 20): without it the module does not even load. Only
// commands this project does not run use globSync, so on Node.js 20 a resolve hook hands the suite's modules an `fs`
// with a globSync that throws; everything else is Node's own fs. On Node.js 22 and later nothing is changed.
import { register } from 'node:module';

if (Number(process.versions.node.split('.')[0]) < 22) {
  const fs = 'data:text/javascript,' + encodeURIComponent(
    "export * from 'node:fs'; export { default } from 'node:fs';"
    + " export function globSync() { throw new Error('fs.globSync needs Node.js 22'); }");
  register('data:text/javascript,' + encodeURIComponent(`
    export async function resolve(specifier, context, next) {
      if ((specifier === 'fs' || specifier === 'node:fs')
          && (context.parentURL ?? '').includes('/@modelcontextprotocol/conformance/')) {
        return { url: ${JSON.stringify(fs)}, shortCircuit: true };
      }
      return next(specifier, context);
    }`));
}
