import { redirect } from "next/navigation";
import { getSessionReseller } from "@/app/_server/session";

export default async function Home() {
  redirect((await getSessionReseller()) ? "/dashboard" : "/signin");
}
