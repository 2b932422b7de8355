// Files embedded with `import path from "./x.bin" with { type: "file" }`: the import is the file's path.
declare module "*.bin" {
  const path: string;
  export default path;
}
