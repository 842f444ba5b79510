/** Dashboards as the API keeps them (docs/api.md "Dashboards"). */
export const PANEL_TYPES = ['timechart', 'table', 'bar', 'line', 'area', 'stat', 'pie'] as const;
export type PanelType = (typeof PANEL_TYPES)[number];

export interface Position {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Panel {
  id: string;
  title: string;
  type: PanelType;
  q: string;
  from?: string;
  position: Position;
}

export interface Variable {
  name: string;
  type: 'field_values' | 'custom';
  field: string;
  values?: string[];
  default?: string;
  label?: string;
}

export interface Dashboard {
  id: string;
  name: string;
  panels: Panel[];
  variables?: Variable[];
}

export interface DashboardSummary {
  id: string;
  name: string;
  panels_count: number;
  updated_at: string;
}
