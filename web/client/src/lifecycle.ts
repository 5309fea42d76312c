/**
 * PageGate pauses a long-lived stream while its page is away, so that the
 * stream does not hold one of the browser's few connections to the server
 * (six per host over HTTP/1.1, shared by every tab) for a page nobody sees:
 * when the page is left (pagehide, which also covers a page kept in the
 * back/forward cache) and, with whenHidden, while its tab is hidden. Outside
 * a browser it never pauses.
 */
export interface PageGate {
  /** Whether the stream should stay closed now. */
  paused(): boolean
  /** Resolves once the stream may run (at once when it may already). */
  wait(): Promise<void>
  /** Removes the gate's listeners and releases a waiting stream. */
  dispose(): void
}

/** pageGate returns a gate that calls onPause (which aborts the stream's request) each time it pauses. */
export function pageGate(whenHidden: boolean, onPause: () => void): PageGate {
  let paused = false
  let release: (() => void) | undefined
  const doc = typeof document === 'undefined' ? undefined : document
  const win = typeof window === 'undefined' ? undefined : window
  const pause = (): void => {
    if (paused) return
    paused = true
    onPause()
  }
  const resume = (): void => {
    paused = false
    release?.()
    release = undefined
  }
  const onVisibility = (): void => (doc?.visibilityState === 'hidden' ? pause() : resume())
  win?.addEventListener('pagehide', pause)
  win?.addEventListener('pageshow', resume)
  if (whenHidden) {
    doc?.addEventListener('visibilitychange', onVisibility)
    if (doc?.visibilityState === 'hidden') paused = true
  }
  return {
    paused: () => paused,
    wait: () => (paused ? new Promise<void>((r) => (release = r)) : Promise.resolve()),
    dispose() {
      win?.removeEventListener('pagehide', pause)
      win?.removeEventListener('pageshow', resume)
      doc?.removeEventListener('visibilitychange', onVisibility)
      resume()
    },
  }
}
