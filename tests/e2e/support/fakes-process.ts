import readline from "node:readline";
import { generateAddress, getCurrency } from "@/lib/currencies";
import { startFakes } from "../../support/fake-providers";

// The provider fakes (tests/support/fake-providers) in a process of their own, for the console's
// browser test (tests/e2e/console-hold.spec.ts): the Playwright worker cannot import lib/ (its
// modules are server-only), so it starts this with `node --conditions=react-server --import tsx`
// and drives the fakes with one JSON command a line on stdin, one JSON answer a line on stdout.
// The first line out is {"env": {...}}: the settings that point a server at these fakes.

const fakes = await startFakes();
// btc -> eth on SideShift only (the provider with set-refund-address).
fakes.setPair("btc", "eth", { sideshift: "20.6" }, { min: "0.001", max: "2" });
fakes.sideshift.shiftsPerMinute = 1000;
fakes.sideshift.quotesPerMinute = 1000;

const out = (v: unknown) => process.stdout.write(`${JSON.stringify(v)}\n`);
out({ env: fakes.env() });

type Command =
  | { id: number; cmd: "script"; payout: string; steps: (string | Record<string, unknown>)[] }
  | { id: number; cmd: "shiftFor"; payout: string }
  | { id: number; cmd: "refund"; shiftId: string }
  | { id: number; cmd: "refundAddressCalls"; shiftId: string }
  | { id: number; cmd: "address"; ticker: string }
  | { id: number; cmd: "stop" };

for await (const line of readline.createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const c = JSON.parse(line) as Command;
  try {
    switch (c.cmd) {
      case "script":
        fakes.sideshift.script(c.payout, c.steps as never);
        out({ id: c.id, ok: true });
        break;
      case "shiftFor": {
        const s = fakes.sideshift.shiftFor(c.payout);
        out({ id: c.id, ok: true, value: s ? { id: s.id, status: s.status } : null });
        break;
      }
      case "refund":
        fakes.sideshift.refund(c.shiftId);
        out({ id: c.id, ok: true });
        break;
      case "refundAddressCalls":
        out({ id: c.id, ok: true, value: fakes.sideshift.refundAddressCalls.filter((x) => x.shiftId === c.shiftId) });
        break;
      case "address":
        out({ id: c.id, ok: true, value: generateAddress(getCurrency(c.ticker)!).address });
        break;
      case "stop":
        await fakes.stop();
        out({ id: c.id, ok: true });
        process.exit(0);
    }
  } catch (e) {
    out({ id: c.id, ok: false, error: (e as Error).message });
  }
}
await fakes.stop();
