/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time per function and per package.
 *   npx tsx bench/lib/cpuprofile-top.ts <file.cpuprofile> [topN]
 */
import { readFileSync } from 'node:fs';
import { owner, type CpuProfile as Profile } from './profile.js';

type ProfileNode = Profile['nodes'][number];

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: cpuprofile-top.ts <file.cpuprofile> [topN]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const top = Number(topArg ?? 40);

const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const byFunction = new Map<string, number>();
const byOwner = new Map<string, number>();
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  if (!us) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const who = owner(url);
  const key = `${functionName || '(anonymous)'}  ${who}${url ? `:${lineNumber + 1}` : ''}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  byOwner.set(who, (byOwner.get(who) ?? 0) + us);
}

// Inclusive time: each sample counts once for every distinct function on its stack.
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const nodeById = new Map(profile.nodes.map((n) => [n.id, n]));
const keyOf = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'}  ${owner(url)}${url ? `:${lineNumber + 1}` : ''}`;
};
const inclusive = new Map<string, number>();
profile.samples.forEach((id, i) => {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) seen.add(keyOf(nodeById.get(at)!));
  for (const key of seen) inclusive.set(key, (inclusive.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
});

const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`);
};
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
print('self time by package / file', byOwner);
print('self time by function', byFunction);
print('inclusive time by function', inclusive);
