// PalReasoning's pace (feature spec, langgraph plan 1.6): a status that arrives less than 300 ms
// after the one on screen waits its turn, so quick steps do not flash past unread. The answer is
// never held back for the queue: once it is ready, statuses not yet shown are skipped (they stay
// in the answer's "steps" list) and the answer appears as soon as the status on screen has had its
// 300 ms, i.e. at most 300 ms late. The clock and timers are injectable for tests.

export const MIN_STATUS_MS = 300;

/**
 * A pacer for one run's statuses. `onShow(n)` is called when the first n received statuses are
 * the ones to show (the last of them is current).
 */
export function createPacer({
  onShow,
  minMs = MIN_STATUS_MS,
  now = () => performance.now(),
  setTimer = (fn, ms) => setTimeout(fn, ms),
  clearTimer = (id) => clearTimeout(id),
}) {
  let received = 0;
  let shown = 0;
  let shownAt = -Infinity;
  let timer = null;
  let settled = false;
  let ready = Promise.resolve(); // outcomes are released in the order they came

  const showNext = () => {
    timer = null;
    if (settled || shown >= received) return;
    shown += 1;
    shownAt = now();
    onShow(shown);
    if (shown < received) timer = setTimer(showNext, minMs);
  };

  return {
    /** A status arrived. */
    push() {
      received += 1;
      if (settled || timer !== null) return;
      const wait = shownAt + minMs - now();
      if (wait <= 0) showNext();
      else timer = setTimer(showNext, wait);
    },
    /** The answer is ready: resolves when it may replace the status on screen. */
    settle() {
      settled = true;
      if (timer !== null) clearTimer(timer);
      timer = null;
      const deadline = shownAt + minMs;
      ready = ready.then(
        () =>
          new Promise((resolve) => {
            const wait = deadline - now();
            if (wait > 0) setTimer(resolve, wait);
            else resolve();
          }),
      );
      return ready;
    },
    /** Forget the run (a new one starts, or it was abandoned). */
    reset() {
      if (timer !== null) clearTimer(timer);
      timer = null;
      received = 0;
      shown = 0;
      shownAt = -Infinity;
      settled = false;
    },
  };
}
