// What the edge entry points import: the package's own loopcompact.wasm, which the runtime or its
// bundler delivers compiled (workerd.ts, edge-light.ts).

declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}

declare module "*.wasm?module" {
  const module: WebAssembly.Module;
  export default module;
}
