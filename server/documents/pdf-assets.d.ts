// Font files bundled with `with { type: "file" }`: the import is the file's path, inside the
// compiled binary too (see server/documents/pdf.ts).
declare module "*.ttf" {
  const path: string;
  export default path;
}
declare module "*.icc" {
  const path: string;
  export default path;
}
