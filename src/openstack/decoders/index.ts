export * from './field.js';
export * from './server.js';
export * from './volume.js';
export * from './octavia.js';
export * from './image.js';
export * from './compute.js';
export * from './network.js';
export * from './instance-action.js';
