"use client";

import { useId } from "react";
import type { AddressCheck } from "./api";
import { classes, useTheme } from "./theme";

/** An address input with its check (useAddressCheck) said below it as it is typed. */
export function AddressField({
  label,
  value,
  onChange,
  check,
  validText,
  hint,
  testId,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  check: AddressCheck | null;
  validText: string;
  hint: string;
  testId?: string;
}) {
  const { dark } = useTheme();
  const c = classes(dark);
  const id = useId();
  const msg = useId();
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      <input
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        autoComplete="off"
        spellCheck={false}
        aria-invalid={check ? !check.valid : undefined}
        aria-describedby={msg}
        className={`w-full rounded-lg border px-3 py-2 font-mono text-sm ${c.input}`}
        data-testid={testId}
      />
      <p
        id={msg}
        className={`mt-1 text-sm ${check ? (check.valid ? c.ok : c.error) : c.muted}`}
        data-testid={testId ? `${testId}-check` : undefined}
      >
        {check ? (check.valid ? validText : check.reason) : hint}
      </p>
    </div>
  );
}
