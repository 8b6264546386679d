/** The parts of a Grafana dashboard JSON the dashboard tests read (deploy/grafana/*.json). */
export interface GrafanaTarget {
  expr?: string;
  refId?: string;
  datasource?: { type?: string; uid?: string };
}

export interface GrafanaPanel {
  id: number;
  type: string;
  title: string;
  gridPos?: { h: number; w: number; x: number; y: number };
  datasource?: { type?: string; uid?: string };
  targets?: GrafanaTarget[];
  panels?: GrafanaPanel[];
}

export interface GrafanaDashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: GrafanaPanel[];
  templating: { list: Array<{ name: string; type: string; query?: string | { query?: string }; definition?: string }> };
}
