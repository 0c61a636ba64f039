/**
 * Counts turns of the event loop (a setImmediate that schedules itself) until stopped: a read
 * that runs on the event loop (better-sqlite3) lets none happen while it holds it.
 */
export function countTurns(): { turns: () => number; stop: () => void } {
  let turns = 0;
  let turning = true;
  const turn = () => {
    turns++;
    if (turning) setImmediate(turn);
  };
  setImmediate(turn);
  return {
    turns: () => turns,
    stop: () => {
      turning = false;
    },
  };
}
