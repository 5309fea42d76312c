import { describe, expect, it } from 'vitest'
import { applyTransform, getProxiedEndpoint } from '../src/index'

describe('proxy helpers', () => {
  const transform = (p: { id: string; name: string }) => {
    if (p.name === 'bad') throw new Error('no title')
    return { id: p.id, title: p.name.toUpperCase() }
  }

  it('uses proxy.sourceEndpoint when the proxy is enabled, else apiPath', () => {
    expect(getProxiedEndpoint({ proxy: { enabled: true, sourceEndpoint: 'shop-products' } }, 'teamProducts')).toBe('shop-products')
    expect(getProxiedEndpoint({ proxy: { enabled: false, sourceEndpoint: 'shop-products' } }, 'teamProducts')).toBe('teamProducts')
    expect(getProxiedEndpoint(undefined, 'teamProducts')).toBe('teamProducts')
  })

  it('applies the transform to an array and to a single item', () => {
    const config = { proxy: { enabled: true, transform } }
    expect(applyTransform([{ id: '1', name: 'lamp' }], config)).toEqual([{ id: '1', title: 'LAMP' }])
    expect(applyTransform({ id: '2', name: 'desk' }, config)).toEqual({ id: '2', title: 'DESK' })
  })

  it('keeps an item whose transform fails unchanged, logs it, and transforms the others', () => {
    const logged: unknown[][] = []
    const out = applyTransform(
      [
        { id: '1', name: 'lamp' },
        { id: '2', name: 'bad' },
        { id: '3', name: 'desk' },
      ],
      { proxy: { enabled: true, transform } },
      { error: (...args: unknown[]) => logged.push(args) },
    )
    expect(out).toEqual([
      { id: '1', title: 'LAMP' },
      { id: '2', name: 'bad' },
      { id: '3', title: 'DESK' },
    ])
    expect(logged).toHaveLength(1)
    expect(String(logged[0]![0])).toMatch(/^\[useCollectionProxy\] Transform failed for item/)
  })

  it('returns the data unchanged when the proxy is not enabled', () => {
    const data = [{ id: '1', name: 'x' }]
    expect(applyTransform(data, { proxy: { enabled: false, transform } })).toBe(data)
  })
})
