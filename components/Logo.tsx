export function Logo() {
  return (
    <svg aria-hidden viewBox="0 0 32 32" className="size-7">
      <rect width="32" height="32" rx="8" className="fill-indigo-600" />
      <path d="M9 12h11l-3-3M23 20H12l3 3" stroke="white" strokeWidth="2.2" fill="none" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
