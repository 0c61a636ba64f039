import { TextLink } from "@/components/ui";

export default function DashboardNotFound() {
  return (
    <div className="py-16 text-center" data-testid="not-found">
      <h1 className="text-xl font-semibold">Not found</h1>
      <p className="mt-2 text-zinc-600">There is nothing here for your account.</p>
      <p className="mt-4">
        <TextLink href="/dashboard/orders">Back to your orders</TextLink>
      </p>
    </div>
  );
}
