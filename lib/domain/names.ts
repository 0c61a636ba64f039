// The rule for names people give things (API keys, widgets): what the dashboard shows in a list,
// a CSV and a channel label. Pure, so the dashboard's forms could check the same way.
//
// Refused (issue 48): control characters (a NUL even failed PostgreSQL's insert with a 500;
// SQLite stored it), the line and paragraph separators, unpaired surrogates, the bidi embedding,
// override and isolate controls (they reorder what the rest of a row shows), and a name with no
// visible character at all (only spaces, zero-width or bidi marks), which no one can tell apart.

// An unpaired surrogate (a string cut inside a character): in a /u pattern a pair is one code
// point, so the surrogate category matches only the unpaired ones.
const LONE_SURROGATE = /\p{Cs}/u;
// C0 and C1 controls and DEL (the Cc category), U+2028 and U+2029.
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
// LRE, RLE, PDF, LRO, RLO and LRI, RLI, FSI, PDI.
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;
// Characters that show nothing: white space and Unicode's default-ignorable code points (the
// zero-width ones, the bidi marks, the word joiner, the byte-order mark, variation selectors,
// the Hangul fillers, tags).
const INVISIBLE = /[\s\p{Default_Ignorable_Code_Point}]/gu;

/** Why `name` cannot be a name (after trimming), or null when it can. */
export function nameProblem(name: string, opts: { max: number }): string | null {
  if (LONE_SURROGATE.test(name)) return "has a broken character (an unpaired surrogate)";
  if (CONTROL.test(name)) return "may not contain control characters (such as a NUL or a line break)";
  if (BIDI_CONTROL.test(name)) return "may not contain bidirectional embedding, override or isolate characters";
  const length = [...name].length;
  if (length < 1 || length > opts.max) return `is 1 to ${opts.max} characters`;
  if (name.replace(INVISIBLE, "").length === 0) return "needs at least one visible character";
  return null;
}
