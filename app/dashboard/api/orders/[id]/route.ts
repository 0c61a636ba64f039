import { getDb, getResellerOrder } from "@/app/_server/lib";
import { dashboardGet } from "@/app/_server/session";

export async function GET(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  return dashboardGet((me) => getResellerOrder(getDb(), { resellerId: me.resellerId, orderId: id }));
}
