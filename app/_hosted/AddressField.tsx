"use client";

import { useTranslations } from "next-intl";
import { useId } from "react";
import type { PageMessage } from "./messages";
import { classes, useTheme } from "./theme";

/**
 * An address input with its message below it: the server's refusal of the value last sent
 * (with or without JavaScript), or, with JavaScript, its check as it is typed (useAddressCheck).
 */
export function AddressField({
  label,
  name,
  value,
  onChange,
  error,
  valid,
  validText,
  hint,
  testId,
}: {
  label: string;
  name: string;
  value: string;
  onChange: (v: string) => void;
  error: PageMessage | null;
  valid: boolean;
  validText: string;
  hint: string;
  testId?: string;
}) {
  const { dark } = useTheme();
  const c = classes(dark);
  const te = useTranslations("errors");
  const id = useId();
  const msg = useId();
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      <input
        id={id}
        name={name}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        autoComplete="off"
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={msg}
        className={`w-full rounded-lg border px-3 py-2 font-mono text-sm ${c.input}`}
        data-testid={testId}
      />
      <p
        id={msg}
        className={`mt-1 text-sm ${error ? c.error : valid ? c.ok : c.muted}`}
        data-testid={testId ? `${testId}-check` : undefined}
      >
        {error ? te(error.key, error.values) : valid ? validText : hint}
      </p>
    </div>
  );
}
