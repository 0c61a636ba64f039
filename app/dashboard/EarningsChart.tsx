"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatDay, formatUsd, groupDecimal } from "@/components/format";
import type { EarningsDay } from "@/lib/dashboard/types";

const PALETTE = ["#4f46e5", "#059669", "#d97706", "#0284c7", "#db2777", "#7c3aed", "#65a30d", "#dc2626", "#0d9488", "#9333ea"];
export const currencyColor = (i: number) => PALETTE[i % PALETTE.length];

/**
 * Realised earnings per UTC day. `view` "usd": one stacked bar per day, a segment per
 * currency, valued at live prices (lib/prices). `view` a ticker: that currency in its own units.
 * Exact decimal strings become numbers only here, for plotting.
 */
export function EarningsChart({ days, tickers, view }: { days: EarningsDay[]; tickers: string[]; view: "usd" | string }) {
  const usd = view === "usd";
  const series = usd ? tickers : [view];
  const data = days.map((d) => {
    const row: Record<string, string | number> = { date: d.date };
    for (const t of series) {
      const exact = (usd ? d.usd[t] : d.amounts[t]) ?? "0";
      row[t] = Number(exact);
      row[`${t}:exact`] = exact;
    }
    return row;
  });
  const tick = (v: number) =>
    usd ? `$${v.toLocaleString("en-US", { maximumFractionDigits: 2 })}` : v.toLocaleString("en-US", { maximumSignificantDigits: 6 });
  return (
    <div className="h-64 w-full sm:h-72" data-testid="earnings-chart">
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height: 256 }}>
        <BarChart data={data} margin={{ top: 8, right: 8, left: 0, bottom: 0 }} accessibilityLayer>
          <CartesianGrid vertical={false} stroke="#e4e4e7" />
          <XAxis
            dataKey="date"
            tickFormatter={formatDay}
            tick={{ fontSize: 12, fill: "#71717a" }}
            tickLine={false}
            axisLine={false}
            minTickGap={16}
          />
          <YAxis tickFormatter={tick} tick={{ fontSize: 12, fill: "#71717a" }} tickLine={false} axisLine={false} width={usd ? 64 : 80} />
          <Tooltip
            cursor={{ fill: "#f4f4f5" }}
            labelFormatter={(l) => {
              const day = days.find((d) => d.date === String(l));
              return usd && day ? `${formatDay(String(l))} · total ${formatUsd(day.totalUsd)}` : formatDay(String(l));
            }}
            formatter={(_value, name, item) => {
              const exact = String((item?.payload as Record<string, string> | undefined)?.[`${String(name)}:exact`] ?? "0");
              return [usd ? formatUsd(exact) : groupDecimal(exact), String(name).toUpperCase()];
            }}
          />
          {usd && series.length > 1 ? <Legend formatter={(v) => String(v).toUpperCase()} wrapperStyle={{ fontSize: 12 }} /> : null}
          {series.map((t) => (
            <Bar
              key={t}
              dataKey={t}
              stackId="earnings"
              fill={currencyColor(tickers.indexOf(t))}
              maxBarSize={40}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
