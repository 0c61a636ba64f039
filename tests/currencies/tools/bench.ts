// Rough timing of validateAddress on the request path: npx tsx --conditions=react-server tests/currencies/tools/bench.ts
import { generateAddress, listCurrencies, validateAddress } from "../../../lib/currencies/index";

const cs = listCurrencies();
const samples = cs.map((c) => [c, generateAddress(c).address] as const);
const N = 200;
const t0 = performance.now();
for (let i = 0; i < N; i++) for (const [c, a] of samples) validateAddress(c, a);
const dt = performance.now() - t0;
console.log(`${((dt * 1000) / (N * samples.length)).toFixed(1)} us per validateAddress (avg over ${cs.length} currencies)`);
const slow: Array<[string, number]> = [];
for (const [c, a] of samples) {
  const s = performance.now();
  for (let i = 0; i < 200; i++) validateAddress(c, a);
  slow.push([c.ticker, ((performance.now() - s) * 1000) / 200]);
}
slow.sort((a, b) => b[1] - a[1]);
console.log(
  "slowest:",
  slow
    .slice(0, 6)
    .map(([t, us]) => `${t} ${us.toFixed(1)}us`)
    .join(", "),
);
