import { applyTransform, getProxiedEndpoint } from '@collectionkit/client'

/**
 * useCollectionProxy returns the spec's proxy helpers: `applyTransform(data,
 * config)` (an array or one item; a failing item is logged with
 * `[useCollectionProxy] Transform failed for item` and kept unchanged) and
 * `getProxiedEndpoint(config, apiPath)` (the source endpoint when the proxy
 * is enabled, else apiPath). They need no plugin.
 */
export function useCollectionProxy(): {
  applyTransform: typeof applyTransform
  getProxiedEndpoint: typeof getProxiedEndpoint
} {
  return { applyTransform, getProxiedEndpoint }
}
