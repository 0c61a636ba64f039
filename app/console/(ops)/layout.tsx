import { Shell } from "@/components/console/Shell";

// Every console page but the sign-in: the shell asks the API who is signed in (GET /me) and
// sends the browser to /console/signin without a console session.
export default function OpsLayout({ children }: { children: React.ReactNode }) {
  return <Shell>{children}</Shell>;
}
