import type { LayoutPreset, LayoutType, ResponsiveLayout } from './types'

/** The breakpoints of ResponsiveLayout, in pixels of viewport width (Tailwind's). */
export const breakpoints = { sm: 640, md: 768, lg: 1024, xl: 1280, '2xl': 1536 } as const

/** The spec's presets: responsive, mobile-friendly, compact and tree-default. */
export const layoutPresets: Record<LayoutPreset, ResponsiveLayout> = {
  responsive: { base: 'list', md: 'grid', lg: 'table' },
  'mobile-friendly': { base: 'list', lg: 'table' },
  compact: { base: 'list', xl: 'table' },
  'tree-default': { base: 'tree' },
}

const layouts: LayoutType[] = ['table', 'list', 'grid', 'tree', 'kanban', 'workspace']

/**
 * resolveLayout returns the layout for a viewport width: a layout type as
 * is; a preset or ResponsiveLayout by the largest breakpoint at or below the
 * width that it names, else its base.
 */
export function resolveLayout(layout: LayoutType | LayoutPreset | ResponsiveLayout, width: number): LayoutType {
  if (typeof layout === 'string') {
    if ((layouts as string[]).includes(layout)) return layout as LayoutType
    return resolveLayout(layoutPresets[layout as LayoutPreset], width)
  }
  let out = layout.base
  for (const bp of ['sm', 'md', 'lg', 'xl', '2xl'] as const) {
    const l = layout[bp]
    if (l && width >= breakpoints[bp]) out = l
  }
  return out
}

/**
 * isLayout reports whether value is a layout KitCollection accepts: a
 * layout type, a preset name, or a ResponsiveLayout (an object whose base
 * and breakpoints are layout types). It checks a registry's `layout` key,
 * which kit serves as given.
 */
export function isLayout(value: unknown): value is LayoutType | LayoutPreset | ResponsiveLayout {
  if (typeof value === 'string') return (layouts as string[]).includes(value) || value in layoutPresets
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false
  const keys = ['base', 'sm', 'md', 'lg', 'xl', '2xl']
  const o = value as Record<string, unknown>
  return (
    (layouts as unknown[]).includes(o.base) &&
    Object.entries(o).every(([k, v]) => keys.includes(k) && (layouts as unknown[]).includes(v))
  )
}

/** The grid's columns per gridSize: compact 4, comfortable 3, spacious 2. */
export const gridColumns = { compact: 4, comfortable: 3, spacious: 2 } as const
