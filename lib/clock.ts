import "server-only";
import { provide, type Scope, slot } from "./scope";

// The app's clock (createApp({ clock })): what "now" is for the worker's passes (orders,
// withdrawals, webhooks and their chores). A test moves it to run a pass an hour or a month
// later without waiting; the system clock otherwise. Timestamps written elsewhere (a request's
// own time) still come from the system clock.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

const clockSlot = slot<Clock>(() => systemClock);

/** The current app's "now". */
export function now(): Date {
  return clockSlot().now();
}

/** Gives an app its own clock. */
export function provideClock(scope: Scope, clock: Clock): void {
  provide(scope, clockSlot, clock);
}
