/**
 * KitError is the one error type every client operation rejects with. It
 * carries kit's wire error shape: `{status, statusText, message, data}`.
 *
 * A network failure (no HTTP answer at all) is a KitError with `status` 0
 * and `statusText` "Network Error"; the original error is its `cause`.
 */
export class KitError extends Error {
  /** HTTP status code, or 0 when the server could not be reached. */
  readonly status: number
  /** HTTP reason phrase ("Not Found"), from the body when kit sent one. */
  readonly statusText: string
  /** Details kit attached, such as `fields` (validation) or `param` (a bad list parameter). */
  readonly data: Record<string, unknown> | undefined

  /**
   * etag is `data.etag`: for a 412 (a conditional write refused because
   * the record changed) the record's current ETag, to retry with once the
   * caller has seen `data.current`; undefined otherwise.
   */
  get etag(): string | undefined {
    const v = this.data?.etag
    return typeof v === 'string' ? v : undefined
  }

  constructor(init: {
    status: number
    statusText: string
    message: string
    data?: Record<string, unknown> | undefined
    cause?: unknown
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause })
    this.name = 'KitError'
    this.status = init.status
    this.statusText = init.statusText
    this.data = init.data
  }
}

/** isKitError reports whether err is a KitError, optionally with the given status. */
export function isKitError(err: unknown, status?: number): err is KitError {
  return err instanceof KitError && (status === undefined || err.status === status)
}

/**
 * errorFromResponse turns a non-2xx response into a KitError, reading kit's
 * JSON error body when there is one and the status line otherwise.
 */
export async function errorFromResponse(res: Response): Promise<KitError> {
  const text = await res.text().catch(() => '')
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = undefined
  }
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>
    return new KitError({
      status: typeof b.status === 'number' ? b.status : res.status,
      statusText: typeof b.statusText === 'string' ? b.statusText : res.statusText,
      message: typeof b.message === 'string' ? b.message : res.statusText || `HTTP ${res.status}`,
      data: b.data && typeof b.data === 'object' ? (b.data as Record<string, unknown>) : undefined,
    })
  }
  return new KitError({
    status: res.status,
    statusText: res.statusText,
    message: text.trim() || res.statusText || `HTTP ${res.status}`,
  })
}
