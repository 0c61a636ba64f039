import { getResellerOrder } from "@/lib/dashboard/orders";
import { dashboardGet } from "@/lib/dashboard/route";
import { getDb } from "@/lib/db/client";

export async function GET(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  return dashboardGet((me) => getResellerOrder(getDb(), { resellerId: me.resellerId, orderId: id }));
}
