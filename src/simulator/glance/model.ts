export interface Image {
  id: string; name: string | null; status: string; visibility: string; protected: boolean; osHidden: boolean;
  owner: string; containerFormat: string | null; diskFormat: string | null; minDisk: number; minRam: number;
  size: number | null; virtualSize: number | null; checksum: string | null; hash: string | null;
  tags: string[]; properties: Record<string, string>; created: number; updated: number; data: Buffer | null;
}

export interface GlanceState { images: Map<string, Image> }
export const createGlanceState = (): GlanceState => ({ images: new Map() });
