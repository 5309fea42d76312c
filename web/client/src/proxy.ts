import type { CollectionConfig } from './types'

/** A logger with an error method, such as console. */
export interface ProxyLogger {
  error(message: string, ...rest: unknown[]): void
}

/**
 * getProxiedEndpoint returns the endpoint a collection is read from: its
 * `proxy.sourceEndpoint` when the proxy is enabled, else apiPath (the
 * spec's proxy rule 1).
 */
export function getProxiedEndpoint(config: Pick<CollectionConfig, 'proxy'> | undefined, apiPath: string): string {
  const p = config?.proxy
  return p?.enabled && p.sourceEndpoint ? p.sourceEndpoint : apiPath
}

/**
 * applyTransform applies the config's `proxy.transform` to an array of
 * items or to one item (rule 2). When the transform throws for an item,
 * the failure is logged with a message starting `[useCollectionProxy]
 * Transform failed for item` and that item is kept unchanged; the others
 * are still transformed (rule 3). Without an enabled proxy transform the
 * data is returned as is.
 */
export function applyTransform<T>(data: T, config: Pick<CollectionConfig, 'proxy'> | undefined, logger: ProxyLogger = console): T {
  const transform = config?.proxy?.enabled ? config.proxy.transform : undefined
  if (!transform || data == null) return data
  const one = (item: unknown): unknown => {
    try {
      return transform(item)
    } catch (err) {
      logger.error('[useCollectionProxy] Transform failed for item', item, err)
      return item
    }
  }
  return (Array.isArray(data) ? data.map(one) : one(data)) as T
}
