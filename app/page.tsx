import { redirect } from "next/navigation";
import { getSessionReseller } from "@/lib/auth/session";

export default async function Home() {
  redirect((await getSessionReseller()) ? "/dashboard" : "/signin");
}
