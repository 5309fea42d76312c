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

/** The grid's columns per gridSize: compact 4, comfortable 3, spacious 2. */
export const gridColumns = { compact: 4, comfortable: 3, spacious: 2 } as const
