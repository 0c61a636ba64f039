import type { Metadata } from "next";
import type { ReactNode } from "react";
import { getDocsData } from "@/app/_server/lib";
import { requireSessionReseller } from "@/app/_server/session";
import { CodeBlock } from "@/components/dashboard/CodeBlock";
import { Card, CardHeader, PageHeader, TextLink } from "@/components/ui";

export const metadata: Metadata = { title: "API quick start" };

export default async function DocsPage() {
  await requireSessionReseller("/dashboard/docs");
  const d = getDocsData();
  const ex = d.example;
  const key = `-H "X-API-Key: $API_KEY"`;
  return (
    <>
      <PageHeader
        title="API quick start"
        description={
          <>
            A handful of calls take a customer from a price to a finished exchange. Everything below uses this server&apos;s base URL and
            your own key; the full contract is in the{" "}
            <a
              className="font-medium text-indigo-700 hover:underline"
              href={d.openApiUrl}
              target="_blank"
              rel="noreferrer"
              data-testid="openapi-link"
            >
              OpenAPI document
            </a>
            .
          </>
        }
      />
      <div className="grid gap-6 lg:grid-cols-3">
        <div className="min-w-0 space-y-6 lg:col-span-2">
          <Step n={1} title="Set your base URL and key">
            <p>
              Create a key on the <TextLink href="/dashboard/keys">API keys</TextLink> page and keep it on your server, never in a browser
              or app bundle.
            </p>
            <CodeBlock label="Environment" code={`export BASE_URL=${d.baseUrl}\nexport API_KEY=rsk_live_...   # your key`} />
          </Step>
          <Step n={2} title="Get an estimate">
            <p>
              <code>toAmount</code> already includes your markup; <code>fee</code> is the total the customer pays (platform fee plus your
              markup). The estimate holds until <code>validUntil</code>.
            </p>
            <CodeBlock
              label="Estimate"
              code={`curl -s "$BASE_URL/estimate?from=${ex.from}&to=${ex.to}&amount=${ex.amount}" \\\n  ${key}`}
            />
          </Step>
          <Step n={3} title="Create the exchange">
            <p>
              Send the customer&apos;s destination address (checked against its network) and, recommended, a refund address. An{" "}
              <code>Idempotency-Key</code> makes a retried request return the same order instead of a second one.
            </p>
            <CodeBlock
              label="Create an exchange"
              code={`curl -s -X POST "$BASE_URL/exchange" \\\n  ${key} \\\n  -H "Content-Type: application/json" \\\n  -H "Idempotency-Key: $(uuidgen)" \\\n  -d '{"from":"${ex.from}","to":"${ex.to}","amount":"${ex.amount}",\n       "address":"${ex.address}",\n       "refundAddress":"${ex.refundAddress}"}'`}
            />
            <p>
              The answer has the order&apos;s <code>id</code> and the <code>payinAddress</code> the customer pays to, with{" "}
              <code>status: &quot;waiting&quot;</code>.
            </p>
          </Step>
          <Step n={4} title="Follow the order">
            <p>
              Poll the status (every 10 to 30 seconds is plenty). States: <code>waiting</code> → <code>confirming</code> →{" "}
              <code>exchanging</code> → <code>sending</code> → <code>finished</code>, or <code>failed</code> with a refund.
            </p>
            <CodeBlock label="Order status" code={`curl -s "$BASE_URL/exchange/ORDER_ID" \\\n  ${key}`} />
            <p>
              Polling is cheap: send the last answer&apos;s <code>ETag</code> back in <code>If-None-Match</code> and an unchanged order
              answers <code>304</code> with no body; <code>Poll-After</code> says how many seconds to wait before asking again. Or let us
              push the changes to you: see{" "}
              <a href="#webhooks" className="font-medium text-indigo-700 hover:underline">
                Webhooks
              </a>{" "}
              below.
            </p>
          </Step>
          <Step n={5} title="Fixed rate and reverse quotes (optional)">
            <p>
              Add <code>rateType=fixed</code> to the estimate to lock its <code>toAmount</code>: the answer carries a <code>rateId</code>,
              valid until <code>validUntil</code>. Give <code>toAmount</code> instead of <code>amount</code> to learn what the customer must
              send to receive it. <code>GET /range?from=&amp;to=</code> gives a pair&apos;s minimum and maximum.
            </p>
            <CodeBlock
              label="Fixed-rate, reverse estimate"
              code={`curl -s "$BASE_URL/estimate?from=${ex.from}&to=${ex.to}&toAmount=1&rateType=fixed" \\\n  ${key}`}
            />
            <CodeBlock
              label="Create it at that rate"
              code={`curl -s -X POST "$BASE_URL/exchange" \\\n  ${key} \\\n  -H "Content-Type: application/json" \\\n  -d '{"from":"${ex.from}","to":"${ex.to}","toAmount":"1","rateType":"fixed","rateId":"RATE_ID",\n       "address":"${ex.address}",\n       "refundAddress":"${ex.refundAddress}"}'`}
            />
            <p>
              A fixed-rate order pays its <code>toAmount</code> only for a deposit of exactly its <code>fromAmount</code> that arrives
              within the fixed window (20 minutes by default); another amount or a later deposit is refunded (
              <code>deposit_amount_mismatch</code>, <code>deposit_late</code>).
            </p>
          </Step>
          <section id="webhooks" aria-labelledby="webhooks-title" className="scroll-mt-20">
            <Card>
              <div className="px-4 py-4 sm:px-5">
                <h2 id="webhooks-title" className="font-semibold">
                  Webhooks: verify every delivery
                </h2>
                <div className="mt-2 space-y-2 text-sm text-zinc-600 [&_code]:rounded [&_code]:bg-zinc-100 [&_code]:px-1 [&_code]:font-mono [&_code]:text-[0.85em] [&_pre_code]:bg-transparent [&_pre_code]:p-0 [&_pre_code]:text-inherit">
                  <p>
                    Add an endpoint on the <TextLink href="/dashboard/webhooks">Webhooks</TextLink> page. Each delivery is a POST of{" "}
                    <code>{`{"type","timestamp","data"}`}</code> with the Standard Webhooks headers <code>webhook-id</code>,{" "}
                    <code>webhook-timestamp</code> and <code>webhook-signature</code>. Check the signature with your endpoint&apos;s secret
                    before trusting the body, answer 2xx quickly, and act once per <code>webhook-id</code> (retries repeat it).
                  </p>
                  <CodeBlock label="verify-webhook.ts" code={d.webhookExample} />
                </div>
              </div>
            </Card>
          </section>
          {d.sandbox ? (
            <Step n={6} title="Try it end to end in the sandbox">
              <p>This server runs the sandbox: report a deposit yourself and watch the order finish, here and in Orders.</p>
              <CodeBlock
                label="Sandbox deposit"
                code={`curl -s -X POST "$BASE_URL/sandbox/exchange/ORDER_ID/deposit" \\\n  ${key} \\\n  -H "Content-Type: application/json" -d '{}'`}
              />
            </Step>
          ) : null}
        </div>
        <div className="min-w-0 space-y-6">
          <Card aria-labelledby="ref-title">
            <CardHeader id="ref-title" title="Reference" />
            <dl className="space-y-3 px-4 py-4 text-sm sm:px-5">
              <div>
                <dt className="text-zinc-500">Base URL</dt>
                <dd className="font-mono break-all" data-testid="base-url">
                  {d.baseUrl}
                </dd>
              </div>
              <div>
                <dt className="text-zinc-500">OpenAPI document</dt>
                <dd className="break-all">
                  <a className="font-mono text-indigo-700 hover:underline" href={d.openApiUrl} target="_blank" rel="noreferrer">
                    {d.openApiUrl}
                  </a>
                </dd>
              </div>
              <div>
                <dt className="text-zinc-500">Authentication</dt>
                <dd>
                  Header <code className="font-mono">X-API-Key</code>. A revoked or unknown key gets 401 <code>INVALID_API_KEY</code>.
                </dd>
              </div>
              <div>
                <dt className="text-zinc-500">Limits with a key</dt>
                <dd>300 requests per minute per key; unlimited orders. Over the limit: 429 with Retry-After.</dd>
              </div>
              <div>
                <dt className="text-zinc-500">Errors</dt>
                <dd>
                  Always <code className="font-mono text-xs">{`{"error":{"code","message"}}`}</code>; branch on <code>code</code>.
                </dd>
              </div>
            </dl>
          </Card>
        </div>
      </div>
    </>
  );
}

function Step({ n, title, children }: { n: number; title: string; children: ReactNode }) {
  return (
    <Card aria-labelledby={`step-${n}`}>
      <div className="px-4 py-4 sm:px-5">
        <h2 id={`step-${n}`} className="flex items-center gap-2 font-semibold">
          <span
            aria-hidden
            className="flex size-6 items-center justify-center rounded-full bg-indigo-50 text-xs font-semibold text-indigo-700"
          >
            {n}
          </span>
          {title}
        </h2>
        <div className="mt-2 space-y-2 text-sm text-zinc-600 [&_code]:rounded [&_code]:bg-zinc-100 [&_code]:px-1 [&_code]:font-mono [&_code]:text-[0.85em] [&_pre_code]:bg-transparent [&_pre_code]:p-0 [&_pre_code]:text-inherit">
          {children}
        </div>
      </div>
    </Card>
  );
}
