export interface Inventory {
  total: number; reserved: number; min_unit: number; max_unit: number; step_size: number; allocation_ratio: number;
}

export interface ResourceProvider {
  uuid: string; name: string; generation: number; parentUuid: string | null; rootUuid: string;
  inventories: Map<string, Inventory>; traits: Set<string>; aggregates: string[];
}

export interface Consumer {
  uuid: string; projectId: string; userId: string; generation: number;
  /** rp uuid → resource class → amount */
  allocations: Map<string, Record<string, number>>;
}

export interface PlacementState {
  rps: Map<string, ResourceProvider>;
  traits: Set<string>;
  resourceClasses: Set<string>;
  consumers: Map<string, Consumer>;
  /** rp uuid → resource class → used; kept in step with consumers. */
  usage: Map<string, Map<string, number>>;
}

export const STANDARD_RESOURCE_CLASSES = [
  'VCPU', 'MEMORY_MB', 'DISK_GB', 'PCI_DEVICE', 'SRIOV_NET_VF', 'NUMA_SOCKET', 'NUMA_CORE', 'NUMA_THREAD',
  'NUMA_MEMORY_MB', 'IPV4_ADDRESS', 'VGPU', 'VGPU_DISPLAY_HEAD', 'NET_BW_EGR_KILOBIT_PER_SEC',
  'NET_BW_IGR_KILOBIT_PER_SEC', 'PCPU', 'MEM_ENCRYPTION_CONTEXT', 'FPGA', 'PGPU',
];

export const STANDARD_TRAITS = [
  'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE42', 'HW_CPU_X86_SGX', 'HW_CPU_X86_VMX', 'HW_NIC_SRIOV',
  'HW_GPU_API_VULKAN', 'STORAGE_DISK_SSD', 'STORAGE_DISK_HDD', 'COMPUTE_VOLUME_ATTACH_WITH_TAG',
  'COMPUTE_VOLUME_MULTI_ATTACH', 'COMPUTE_TRUSTED_CERTS', 'COMPUTE_NET_ATTACH_INTERFACE',
  'COMPUTE_IMAGE_TYPE_RAW', 'COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_NODE', 'COMPUTE_STATUS_DISABLED',
  'MISC_SHARES_VIA_AGGREGATE', 'CUSTOM_BAREMETAL',
];

export const createPlacementState = (): PlacementState => ({
  rps: new Map(), traits: new Set(STANDARD_TRAITS.filter((t) => !t.startsWith('CUSTOM_'))),
  resourceClasses: new Set(STANDARD_RESOURCE_CLASSES), consumers: new Map(), usage: new Map(),
});
